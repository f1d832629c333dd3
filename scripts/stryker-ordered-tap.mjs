// A Stryker test runner: the TAP runner (@stryker-mutator/tap-runner), running the test files in the
// order scripts/mutation-suites.mjs wrote to <bundle folder>/order.json instead of the order glob
// found them in. A mutant runs the files that reach it in the dry run's order and stops at the first
// that fails, so a killed mutant costs one file when its killer comes first.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { INSTRUMENTER_CONSTANTS } from '@stryker-mutator/api/core'
import { PluginKind, commonTokens, declareFactoryPlugin, tokens } from '@stryker-mutator/api/plugin'
import { TapTestRunner } from '@stryker-mutator/tap-runner'

/** The order file beside the bundles: a JSON list of bundle paths, as the runner names them. */
export const ORDER_FILE = 'order.json'

/** The test file a bundle was built from: .mutation-bundle/http/oauth2.test.mjs → test/http/oauth2.test.ts. */
export function sourceOfBundle(bundle) {
  return join('test', bundle.split('/').slice(1).join('/')).replace(/\.mjs$/, '.ts')
}

class OrderedTapTestRunner extends TapTestRunner {
  // Each result names the test file the bundle was built from: a bundle holds the code under test,
  // so it changes with every change to that code, and Stryker's incremental mode, comparing test
  // files, would then test every mutant again; the test file changes only when the test does.
  tapResultToTestResult(fileName, result, timeSpentMs) {
    return { ...super.tapResultToTestResult(fileName, result, timeSpentMs), fileName: sourceOfBundle(fileName) }
  }

  async init() {
    await super.init()
    const bundles = this.testFiles[0]?.split('/')[0]
    if (!bundles) return
    const order = JSON.parse(readFileSync(join(bundles, ORDER_FILE), 'utf8'))
    const position = new Map(order.map((file, i) => [file, i]))
    this.testFiles.sort((a, b) => (position.get(a) ?? order.length) - (position.get(b) ?? order.length) || a.localeCompare(b))
  }
}

function createOrderedTapTestRunner(injector) {
  return injector.provideValue('globalNamespace', INSTRUMENTER_CONSTANTS.NAMESPACE).injectClass(OrderedTapTestRunner)
}
createOrderedTapTestRunner.inject = tokens(commonTokens.injector)

export const strykerPlugins = [declareFactoryPlugin(PluginKind.TestRunner, 'ordered-tap', createOrderedTapTestRunner)]
