#!/bin/sh
# Runs docs/nginx.conf on loopback in front of three vs-chatops instances on
# one PostgreSQL and sends signed Slack requests through it (docs/production.md).
# Installs nginx with apt-get when it is missing. DATABASE_URL: use that
# PostgreSQL instead of starting a throwaway one. Exits non-zero on the first
# failed check. Needs the dev dependencies (npm ci).
set -eu
cd "$(dirname "$0")/.."
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  echo "[try-nginx] nginx is not installed; installing it with apt-get"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get install -y nginx >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y nginx >/dev/null; }
fi
exec node --import tsx scripts/try-nginx.ts "$@"
