// Every domain-tier test in one process, for mutation testing (stryker.config.mjs): one Node start
// per mutant instead of one per test file. npm test runs the files themselves.
// First: scrypt at a lower cost (see the file), without which a run takes four times as long.
import './cheap-password-hashing.ts'
import './audit.test.ts'
import './browser-sessions.test.ts'
import './callback-url.test.ts'
import './client-address.test.ts'
import './console.test.ts'
import './ids.test.ts'
import './oauth1/authorization.test.ts'
import './oauth1/exchange-verifier.test.ts'
import './oauth1/verify-signed-request.test.ts'
import './oauth1/verification-outcomes.test.ts'
import './oauth2/bearer-token.test.ts'
import './registry.test.ts'
import './sign-in.test.ts'
import './signature-failure-log.test.ts'
