// Every test of src/protocol in one process, for mutation testing (stryker.config.mjs): one Node
// start per mutant instead of one per test file. npm test runs the files themselves. fast-paths.test.ts
// is left out: its references are now the code's own algorithms, and its exhaustive loop is slow.
import './oauth1/auth-header.test.ts'
import './form.test.ts'
import './oauth1/interop.property.test.ts'
import './oauth1/parameters.test.ts'
import './oauth1/percent-encode.test.ts'
import './oauth1/signature.test.ts'
import './oauth2/basic-credentials.test.ts'
import './oauth2/bearer-token.test.ts'
import './secrets.test.ts'
