import { Command } from 'commander'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { configFrom, withDomain } from '../context.ts'
import { currentDemo, demoFilePath, readDemoFile, writeDemoFile } from '../../composition/dev-demo.ts'
import { lines, print } from '../output.ts'

export function demoCommand(): Command {
  return new Command('demo')
    .description('the demo credentials the development server made on its first start, as they are now (development databases only)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { database } = configFrom(command)
      const file = demoFilePath(database)
      if (!file) throw new ServiceError(E.invalidParameter, { message: 'a demo lives only in a development database (SQLite): this one is PostgreSQL' })
      const made = readDemoFile(file)
      if (!made) throw new ServiceError(E.invalidParameter, { message: `no demo on ${database}: the first start of the development server (npm start) on an empty database makes one` })
      const demo = await withDomain(command, (deps) => currentDemo(deps, made))
      // The front door shows the file: it shows the current keys from now on too.
      writeDemoFile(file, demo)
      const view = {
        sign_in: `${demo.screenName} / ${demo.password}`,
        app_id: demo.appId,
        consumer_key: demo.consumerKey,
        consumer_secret: demo.consumerSecret,
        owner_access_token: demo.accessToken,
        owner_token_secret: demo.accessTokenSecret,
        admin_token: demo.adminToken,
      }
      print(!!options.json, view, () => lines(view))
    })
}
