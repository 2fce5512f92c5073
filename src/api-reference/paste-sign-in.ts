import { parsePastedHeaders } from './signed-headers.ts';
import { authorizeSignedHeaders, type Component, type ImmutableMap, type SecurityScheme, type SwaggerSystem } from './swagger-system.ts';
import { WalletSignInBox } from './wallet-sign-in.ts';

/*
 * A Swagger UI plugin: the Authorize dialog gets, above the X-WAL scheme's form, the sign-in with a
 * browser wallet (wallet-sign-in.ts) and a box that takes everything `wallet-admin sign` prints;
 * either authorizes the three wallet schemes at once. Without them a signed-in request takes three
 * pastes and three Authorize presses, one per header.
 */

interface AuthsProps {
  definitions: ImmutableMap<SecurityScheme>;
}

function PasteBox(system: SwaggerSystem): Component<Record<string, never>> {
  const { React } = system;
  const h = React.createElement;
  return function WalletAdminSignInPaste() {
    const [problem, setProblem] = React.useState<string | undefined>(undefined);
    const submit = (event: Event) => {
      event.preventDefault();
      const form = event.currentTarget as HTMLFormElement;
      const pasted = parsePastedHeaders(new FormData(form).get('signed') as string);
      if (!pasted.ok) {
        setProblem(pasted.problem);
        return;
      }
      authorizeSignedHeaders(system, pasted.headers);
    };
    return h(
      'form',
      { className: 'wallet-admin-paste', onSubmit: submit, style: { padding: '0 0 20px', borderBottom: '1px solid #ebebeb' } },
      h('h4', null, 'All three at once'),
      h(
        'p',
        { id: 'wallet-admin-paste-help' },
        'Paste everything ',
        h('code', null, 'npm exec --no -- wallet-admin sign'),
        ' printed (or its --json): X-WAL, X-SIG and X-MES below are authorized together.',
      ),
      h('textarea', {
        name: 'signed',
        rows: 5,
        spellCheck: false,
        autoComplete: 'off',
        'aria-label': 'The output of wallet-admin sign',
        'aria-describedby': 'wallet-admin-paste-help',
        placeholder: 'X-WAL: 0x…\nX-SIG: 0x…\nX-MES: base64:…',
        // Swagger UI's own textarea style is a request body's: far taller than four lines.
        style: { width: '100%', minHeight: '0', height: '7em', fontFamily: 'monospace', fontSize: '12px' },
      }),
      problem !== undefined && h('p', { role: 'alert', style: { color: '#b91c1c' } }, problem),
      h(
        'div',
        { className: 'auth-btn-wrapper' },
        h('button', { type: 'submit', className: 'btn modal-btn auth authorize' }, 'Authorize all three'),
      ),
    );
  };
}

/**
 * The plugin (Swagger UI calls it with its system): the box goes into the Authorize dialog once,
 * with the X-WAL scheme's form, since the dialog has one form per scheme.
 */
export function pasteSignInPlugin() {
  return {
    wrapComponents: {
      auths: (Original: Component<AuthsProps>, system: SwaggerSystem) => {
        const Box = PasteBox(system);
        const Wallets = WalletSignInBox(system);
        const h = system.React.createElement;
        return (props: AuthsProps) => {
          const sendsAddress = props.definitions.some((scheme) => scheme.get('in') === 'header' && scheme.get('name') === 'X-WAL');
          const original = h(Original as Component<never>, props);
          return sendsAddress ? h('div', null, h(Wallets), h(Box), original) : original;
        };
      },
    },
  };
}
