import { Command } from 'commander'
import { E } from '../../errors/catalogue.ts'
import { ServiceError } from '../../errors/service-error.ts'
import { configFrom } from '../context.ts'
import { demoFilePath, readDemoFile } from '../dev-demo.ts'
import { lines, print } from '../output.ts'

export function demoCommand(): Command {
  return new Command('demo')
    .description('the demo credentials the development server made on its first start, again (development databases only)')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }, command: Command) => {
      const { database } = configFrom(command)
      const file = demoFilePath(database)
      if (!file) throw new ServiceError(E.invalidParameter, { message: 'a demo lives only in a development database (SQLite): this one is PostgreSQL' })
      const demo = readDemoFile(file)
      if (!demo) throw new ServiceError(E.invalidParameter, { message: `no demo on ${database}: the first start of the development server (npm start) on an empty database makes one` })
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
