import { detect } from './src/ecosystems/npm/detect.js';
import { buildInventory } from './src/ecosystems/npm/build.js';
import { chainNpm } from './test/helpers/hostile-inputs.js';
async function once(n: number) {
  const f = [chainNpm(n)];
  const t = process.cpuUsage();
  await buildInventory(detect(f), () => Promise.reject(new Error('x')), () => undefined);
  const u = process.cpuUsage(t);
  return (u.user + u.system) / 1000;
}
for (const n of [1500, 1500, 3000, 6000, 12000, 24000]) {
  let best = Infinity;
  for (let i = 0; i < 3; i++) best = Math.min(best, await once(n));
  console.log(n, best.toFixed(1));
}
