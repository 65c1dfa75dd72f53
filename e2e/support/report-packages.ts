/**
 * Preloaded (`node --import`) into a Keepsake process a test starts: records every npm package
 * the process resolves, whether imported or required, and prints them on SIGUSR2 as
 * `packages ["pg", …]`. The process's own code is unchanged.
 */
import { registerHooks } from "node:module";

const packages = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url)?.[1];
    if (name) packages.add(name);
    return resolved;
  },
});
process.on("SIGUSR2", () => {
  console.log(`packages ${JSON.stringify([...packages].sort())}`);
});
