import { type Config, DEFAULT_HOST, DEFAULT_PORT } from '../config/config.ts';

type SigningSettings = Pick<Config, 'host' | 'port' | 'publicBaseUrl'> & { auth: Pick<Config['auth'], 'domains'> };

/**
 * The `wallet-admin sign` line a start-up prints, to run as printed from the project's folder. The
 * CLI signs for the domain and URI the same settings give the service (the first of AUTH_DOMAINS,
 * PUBLIC_BASE_URL), read from its own environment: a service started with `PORT=8081 npm start`
 * is signed for by `PORT=8081 npm exec …`, so HOST and PORT other than the defaults lead the line.
 * Where PUBLIC_BASE_URL or AUTH_DOMAINS make them differ from what HOST and PORT give, --domain
 * and --uri say them.
 */
export function signCommandLine(config: SigningSettings, key = '<key>'): string {
  const settings = [
    ...(config.host === DEFAULT_HOST ? [] : [`HOST=${config.host}`]),
    ...(config.port === DEFAULT_PORT ? [] : [`PORT=${config.port}`]),
  ];
  const fromHostAndPort = new URL(`http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`);
  const sameMessage = fromHostAndPort.origin === config.publicBaseUrl && fromHostAndPort.host === config.auth.domains[0];
  const options = sameMessage ? [] : [`--domain ${config.auth.domains[0]}`, `--uri ${config.publicBaseUrl}`];
  return [...settings, `npm exec --no -- wallet-admin sign --private-key ${key}`, ...options].join(' ');
}
