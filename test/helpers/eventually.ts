/** Retries `call` every 100 ms until it succeeds (a reconnecting client, a server still getting there), at most `withinMs`. */
export async function eventually<T>(call: () => Promise<T>, withinMs = 10_000): Promise<T> {
  const deadline = Date.now() + withinMs
  for (;;) {
    try {
      return await call()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
