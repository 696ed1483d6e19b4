// Worker-thread entry of the fuzzer (fuzz.ts bundles it with esbuild into plain
// JavaScript, so a terminated worker leaves no loader hooks behind). Receives one
// input at a time and answers with its outcome and the time it took; the parent
// keeps the watchdog and terminates this thread when an input hangs.
import { parentPort } from 'node:worker_threads';
import { runInput, type FuzzInput } from './target.js';

parentPort!.on('message', (msg: { id: number; input: FuzzInput }) => {
  const t = performance.now();
  const outcome = runInput(msg.input);
  parentPort!.postMessage({ id: msg.id, outcome, ms: performance.now() - t });
});
parentPort!.postMessage({ ready: true });
