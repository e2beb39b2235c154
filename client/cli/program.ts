// The command's name as a user types it: the package.json bin of a clone and of the bundled package
// (scripts/pack-client.js). Not `data-import`: a public npm package of that name is what `npx
// data-import` runs outside a clone.
export const PROGRAM = 'data-import-client';
