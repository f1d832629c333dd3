// Every test of src/protocol in one process, for mutation testing (stryker.config.mjs): one Node
// start per mutant instead of one per test file. npm test runs the files themselves.
import './oauth1/auth-header.test.ts'
import './oauth1/fast-paths.test.ts'
import './form.test.ts'
import './oauth1/interop.property.test.ts'
import './oauth1/parameters.test.ts'
import './oauth1/percent-encode.test.ts'
import './oauth1/signature.test.ts'
import './oauth2/basic-credentials.test.ts'
import './oauth2/bearer-token.test.ts'
import './secrets.test.ts'
