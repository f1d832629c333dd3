#!/usr/bin/env node
// The installed `latchkey` command: the compiled CLI (npm run build makes dist/).
await import('../dist/cli/main.js')
