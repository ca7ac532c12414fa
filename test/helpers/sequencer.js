/**
 * The order of the suites (Jest's testSequencer, global): in the fault project, suites with a fixed wall-clock scenario (platform-outage: 60 s of outage) start
 * first, so the others run beside them rather than after them. Jest's default order (previous durations,
 * else file size) knows nothing of that on a clean clone, where it would often start the 60 s suite last.
 */
const Sequencer = require("@jest/test-sequencer").default;

const FIRST = ["platform-outage.test.ts"];

class FaultSequencer extends Sequencer {
  sort(tests) {
    const rank = (t) => { const i = FIRST.findIndex((name) => t.path.endsWith(name)); return i < 0 ? FIRST.length : i; };
    return Promise.resolve(super.sort(tests)).then((sorted) => [...sorted].sort((a, b) => rank(a) - rank(b)));
  }
}

module.exports = FaultSequencer;
