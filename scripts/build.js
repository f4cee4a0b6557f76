#!/usr/bin/env node
// Compiles src/ to dist/ (run by `npm ci` through "prepare"). With
// --if-stale (run before `npm start`) it compiles only when a source file is
// newer than the last build, so an edited tree never starts stale code and a
// fresh one starts at once. Plain JS: it must run before anything is built.
// With TypeScript (a dev dependency) it type-checks and compiles with tsc;
// without it (`npm ci --omit=dev`) it transpiles with tsx's esbuild.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const root = join(__dirname, '..');
const stamp = join(root, 'dist', '.build-stamp');
const inputs = [join(root, 'src'), join(root, 'tsconfig.json'), join(root, 'tsconfig.build.json'), join(root, 'package-lock.json')];

function newestMtime(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function isStale() {
  if (!existsSync(stamp)) return true;
  const built = statSync(stamp).mtimeMs;
  return inputs.some((input) => existsSync(input) && newestMtime(input) > built);
}

if (process.argv.includes('--if-stale') && !isStale()) process.exit(0);

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  tsc = undefined;
}
if (tsc) {
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write('vs-chatops: the TypeScript build failed (see above); nothing was started.\n');
    process.exit(result.status ?? 1);
  }
} else {
  // `npm ci --omit=dev` (production): no TypeScript, so no type check here (CI did it). The
  // sources are transpiled file by file with esbuild, which tsx (a runtime dependency) brings.
  transpileWithEsbuild();
}
writeFileSync(stamp, new Date().toISOString() + '\n');

function transpileWithEsbuild() {
  let esbuild;
  try {
    esbuild = require(require.resolve('esbuild', { paths: [dirname(require.resolve('tsx'))] }));
  } catch {
    process.stderr.write('vs-chatops: dist/ needs building and neither TypeScript nor esbuild (from tsx) is installed; run `npm ci` first.\n');
    process.exit(1);
  }
  const sources = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) sources.push(path);
    }
  };
  walk(join(root, 'src'));
  try {
    esbuild.buildSync({
      entryPoints: sources,
      outdir: join(root, 'dist'),
      outbase: join(root, 'src'),
      bundle: false,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      sourcemap: true,
      logLevel: 'warning',
    });
  } catch {
    process.stderr.write('vs-chatops: the build failed (see above); nothing was started.\n');
    process.exit(1);
  }
}
