/**
 * A preload (`node --import ./test/support/loaded-packages.mjs …`, or through `NODE_OPTIONS`) that records
 * which npm packages the process loads: every module resolved from a `node_modules` folder, by its package's
 * name, written as a JSON array to the file `LOADED_PACKAGES_FILE` names when the process exits. Plain
 * JavaScript, so that Node runs it as it is, before anything else of the process is loaded.
 */
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.LOADED_PACKAGES_FILE;
const loaded = new Set();

/** The package a module belongs to: the name after its last `node_modules/`, scoped or not. */
const packageOf = (url) => {
  const match = /\/node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\/(?:(?!node_modules\/).)*$/.exec(url);
  return match === null ? undefined : match[1];
};

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const name = packageOf(resolved.url);
    if (name !== undefined) loaded.add(name);
    return resolved;
  },
});

process.on('exit', () => {
  if (file) writeFileSync(file, JSON.stringify([...loaded].sort()));
});
