// s3rver ships no types; only what the tests use is declared.
declare module 's3rver' {
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
    /** Its FilesystemStore (see writesAnsweredWhenStored in s3-server.ts). */
    store: unknown;
    /** Koa's middleware stack (S3rver extends Koa); composed when run() starts listening. */
    middleware: ((
      ctx: { method: string; path: string; querystring: string; headers: Record<string, string | string[] | undefined> },
      next: () => Promise<void>,
    ) => Promise<void>)[];
  }
}
