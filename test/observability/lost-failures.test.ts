import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMetrics } from '../../src/observability/metrics.ts'
import { everySample, seriesKey } from '../helpers/prometheus-text.ts'

// Losing a failure needs 4 writes already pending or a write that fails, which no request
// can bring about on purpose: the log's side is tested in test/domain/signature-failure-log.test.ts
// (with the observer compose.ts wires), the metric's side here.
test('signature failures lost are counted by reason, both reasons from 0', async () => {
  const metrics = createMetrics()
  const lost = async () => {
    const samples = everySample(await metrics.scrape())
    return ['dropped', 'write_failed'].map((reason) => samples.get(seriesKey('latchkey_signature_failures_lost_total', { reason })))
  }
  assert.deepEqual(await lost(), [0, 0])
  metrics.observer.signatureFailureLost('dropped')
  metrics.observer.signatureFailureLost('dropped')
  metrics.observer.signatureFailureLost('write_failed')
  assert.deepEqual(await lost(), [2, 1])
})
