// Types of supported-node.js for the TypeScript that imports it (test/cli/supported-node.unit.test.ts).
export declare const MINIMUM_NODE_MAJOR: number;
export declare const TESTED_NODE_MAJORS: number[];
export declare function unsupportedNodeMessage(version: string, execPath: string): string | undefined;
