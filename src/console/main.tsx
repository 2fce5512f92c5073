import { render } from 'preact';
import './styles.css';

function App() {
  return <main>wallet-admin console</main>;
}

render(<App />, document.getElementById('app') as HTMLElement);
