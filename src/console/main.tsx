import { render } from 'preact';
import { App } from './app.tsx';
import { ConsoleSession } from './wallet/console-session.ts';
import './styles.css';

render(<App session={new ConsoleSession()} />, document.getElementById('app') as HTMLElement);
