// Loaded with `node --import` by scripts/with-node.sh: sends better-sqlite3's native binding to
// the copy compiled for the running Node version, so node_modules (built for the machine's own
// Node) can be shared between versions. Needs module.registerHooks (Node 22.15 and later).
import { registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';

const binding = process.env.PORTAL_BETTER_SQLITE3_BINDING;
if (binding) {
  const target = pathToFileURL(binding).href;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      if (resolved.url?.endsWith('/better-sqlite3/build/Release/better_sqlite3.node')) {
        return { ...resolved, url: target, shortCircuit: true };
      }
      return resolved;
    },
  });
}
