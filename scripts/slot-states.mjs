// Writes the slot's state diagram into docs/slot-states.md from the transition table
// (lib/schedule/slot-machine.ts, built to dist/). test/lib/schedule/slot-machine.test.ts checks it.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { slotStateDiagram } = require('../dist/lib/schedule/slot-machine.js');
const file = new URL('../docs/slot-states.md', import.meta.url);
const text = readFileSync(file, 'utf8');
const block = /```mermaid\n[\s\S]*?```/;
if (!block.test(text)) throw new Error('docs/slot-states.md has no mermaid block to replace');
writeFileSync(file, text.replace(block, `\`\`\`mermaid\n${slotStateDiagram()}\n\`\`\``));
console.log('docs/slot-states.md: diagram written from the transition table');
