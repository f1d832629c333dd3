import cluster from 'node:cluster'
import { AggregatorRegistry, type Registry } from 'prom-client'

/**
 * `serve --workers N`: the workers share the port, so a scrape lands on any one of them. That worker
 * asks the primary, which gathers every worker's registry (prom-client's AggregatorRegistry sums
 * the counters and histograms) and sends the text back: one scrape shows the whole machine.
 */

const SCRAPE_REQUEST = 'latchkey:metrics-request'
const SCRAPE_ANSWER = 'latchkey:metrics-answer'
/** Longer than the aggregator's own 5 s wait for the workers. */
const SCRAPE_TIMEOUT_MS = 10_000

interface ScrapeAnswer {
  type: typeof SCRAPE_ANSWER
  id: number
  text?: string
  error?: string
}

/** In the primary: answers the workers' scrape requests with the aggregate of all of them. */
export function aggregateWorkerMetrics(): void {
  const aggregator = new AggregatorRegistry()
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message, SCRAPE_REQUEST)) return
    const id = (message as { id: number }).id
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: SCRAPE_ANSWER, id, text }),
      (error: Error) => worker.send({ type: SCRAPE_ANSWER, id, error: error.message }),
    )
  })
}

/** In a worker: offers `registry` to the primary's aggregate, and returns a scrape that asks for it. */
export function workerScrape(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry])
  // Constructing one adds the worker's listener for the primary's requests.
  new AggregatorRegistry()
  let nextId = 0
  const pending = new Map<number, (answer: ScrapeAnswer) => void>()
  process.on('message', (message: unknown) => {
    if (!isMessage(message, SCRAPE_ANSWER)) return
    const answer = message as ScrapeAnswer
    pending.get(answer.id)?.(answer)
  })
  return () =>
    new Promise((resolve, reject) => {
      const id = nextId++
      const timer = setTimeout(() => settle({ type: SCRAPE_ANSWER, id, error: 'the primary did not answer' }), SCRAPE_TIMEOUT_MS)
      function settle(answer: ScrapeAnswer): void {
        clearTimeout(timer)
        pending.delete(id)
        if (answer.text !== undefined) resolve(answer.text)
        else reject(new Error(`cannot gather the workers' metrics: ${answer.error ?? 'no answer'}`))
      }
      pending.set(id, settle)
      process.send?.({ type: SCRAPE_REQUEST, id })
    })
}

function isMessage(message: unknown, type: string): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type
}
