'use strict';
// Preloaded into a spawned bot (`node --require`) by test/telemetry.test.ts: when the process exits, it writes to
// the file VS_TEST_MODULE_WITNESS names every module of @opentelemetry the process asked for (and which file asked),
// and every one in the module cache. Nothing in the product loads it.
const Module = require('node:module');
const { writeFileSync } = require('node:fs');

const out = process.env.VS_TEST_MODULE_WITNESS;
const requests = [];
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (typeof request === 'string' && request.includes('@opentelemetry/')) requests.push({ request, from: parent ? parent.filename : null });
  return load.call(this, request, parent, isMain);
};
process.on('exit', () => {
  const cached = Object.keys(require.cache).filter((file) => file.includes('@opentelemetry'));
  if (out) writeFileSync(out, JSON.stringify({ requests, cached }));
});
