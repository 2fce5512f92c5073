import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type Log = (...args: unknown[]) => void;

/**
 * A request's logger (its reqId bound) that makes the pino child only when something logs
 * through it. Most requests never do — their one line is written by RequestLog — and a child per
 * request was a measurable share of a cached sign-in's cost (bench: auth-warm). One small object
 * per request; the methods live on the prototype.
 */
class LazyRequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: object,
  ) {}

  #real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }
  set level(value: string) {
    this.#real().level = value;
  }

  fatal(...args: unknown[]): void {
    (this.#real().fatal as Log)(...args);
  }
  error(...args: unknown[]): void {
    (this.#real().error as Log)(...args);
  }
  warn(...args: unknown[]): void {
    (this.#real().warn as Log)(...args);
  }
  info(...args: unknown[]): void {
    (this.#real().info as Log)(...args);
  }
  debug(...args: unknown[]): void {
    (this.#real().debug as Log)(...args);
  }
  trace(...args: unknown[]): void {
    (this.#real().trace as Log)(...args);
  }
  silent(): void {}
  child(bindings: Bindings, options?: object): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: see LazyRequestLogger. */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: object): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
