#!/usr/bin/env node
// Compiles src/ to dist/ (run by `npm ci` through "prepare"), and each
// workspace package the bot imports (packages/*) to dist/node_modules/<its
// name>, where node looks first from dist/: `npm start` runs dist/ alone,
// while tsx and the tests take the packages' TypeScript sources (their
// package.json's "main"). With --if-stale (run before `npm start`) it compiles
// only when a source file is newer than the last build, so an edited tree
// never starts stale code and a fresh one starts at once. Plain JS: it must
// run before anything is built. With TypeScript (a dev dependency) it
// type-checks and compiles with tsc; without it (`npm ci --omit=dev`) it
// transpiles with tsx's esbuild.
'use strict';
const { spawnSync } = require('node:child_process');
const { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');
const stamp = join(dist, '.build-stamp');
/** The workspace packages (package.json's "workspaces"), each with where its build goes. */
const packages = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces.map((dir) => {
  const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  return { dir: join(root, dir), manifest, out: join(dist, 'node_modules', manifest.name) };
});
const inputs = [
  join(root, 'src'),
  ...packages.map((p) => p.dir),
  join(root, 'tsconfig.json'),
  join(root, 'tsconfig.build.json'),
  join(root, 'package-lock.json'),
];

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
  compileWithTsc(join(root, 'tsconfig.build.json'), dist);
  for (const p of packages) {
    rmSync(p.out, { recursive: true, force: true });
    compileWithTsc(join(p.dir, 'tsconfig.build.json'), join(p.out, 'src'));
  }
} else {
  // `npm ci --omit=dev` (production): no TypeScript, so no type check here (CI did it). The
  // sources are transpiled file by file with esbuild, which tsx (a runtime dependency) brings.
  const esbuild = loadEsbuild();
  transpileWithEsbuild(esbuild, join(root, 'src'), dist);
  for (const p of packages) {
    rmSync(p.out, { recursive: true, force: true });
    transpileWithEsbuild(esbuild, join(p.dir, 'src'), join(p.out, 'src'));
  }
}
for (const p of packages) copyPackage(p);
writeFileSync(stamp, new Date().toISOString() + '\n');

function compileWithTsc(project, outDir) {
  const result = spawnSync(process.execPath, [tsc, '-p', project, '--outDir', outDir], { stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write('vs-chatops: the TypeScript build failed (see above); nothing was started.\n');
    process.exit(result.status ?? 1);
  }
}

/**
 * The rest of a built package: its package.json, pointing at the compiled entry, and the files it ships
 * besides its sources ("files": the stand-in's page).
 */
function copyPackage({ dir, manifest, out }) {
  const main = (manifest.main ?? 'src/index.ts').replace(/\.ts$/, '.js');
  const { types: _types, scripts: _scripts, ...rest } = manifest;
  writeFileSync(join(out, 'package.json'), JSON.stringify({ ...rest, main }, null, 2) + '\n');
  for (const entry of manifest.files ?? []) {
    if (entry !== 'src') cpSync(join(dir, entry), join(out, entry), { recursive: true });
  }
}

function loadEsbuild() {
  try {
    return require(require.resolve('esbuild', { paths: [dirname(require.resolve('tsx'))] }));
  } catch {
    process.stderr.write('vs-chatops: dist/ needs building and neither TypeScript nor esbuild (from tsx) is installed; run `npm ci` first.\n');
    process.exit(1);
  }
}

function transpileWithEsbuild(esbuild, from, outdir) {
  const sources = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) sources.push(path);
    }
  };
  walk(from);
  mkdirSync(outdir, { recursive: true });
  try {
    esbuild.buildSync({
      entryPoints: sources,
      outdir,
      outbase: from,
      bundle: false,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // `import('./x')` (src/compose.ts loads src/telemetry.ts on demand) as require('./x'), as tsc writes it: Node's
      // import() of a CommonJS file wants the file's extension.
      supported: { 'dynamic-import': false },
      sourcemap: true,
      logLevel: 'warning',
    });
  } catch {
    process.stderr.write('vs-chatops: the build failed (see above); nothing was started.\n');
    process.exit(1);
  }
}
