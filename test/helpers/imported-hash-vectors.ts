/**
 * Password hashes made once by each format's reference tool or library, for the password below,
 * and kept as fixed strings: Latchkey must verify what those tools wrote, not what it writes itself.
 */
export const VECTOR_PASSWORD = 'Tr0ub4dor&3 imported'

export const HASH_VECTORS = {
  // htpasswd -bnBC 10 alice 'Tr0ub4dor&3 imported' (apache2-utils 2.4.71, Debian 12)
  bcrypt2y: '$2y$10$4.z1swmbt5YJViOLzM1uIuGRJKPIdQ0HHIlRacVPhtI1E.0qfyzDO',
  // /usr/bin/python3 -c "import bcrypt; print(bcrypt.hashpw(b'Tr0ub4dor&3 imported', bcrypt.gensalt(rounds=10, prefix=b'2b')).decode())" (python3-bcrypt 3.2.2)
  bcrypt2b: '$2b$10$lhvT0RjHDzgwsd.tGWlCV.h5s/XvXcKsTMdd.WCAilkvBpxTCIBKq',
  // the same with prefix=b'2a'
  bcrypt2a: '$2a$10$CPUFoTquuX0p7NpG/JkWLesSjpY0LbeiOc4/csRUYW0GW7RBrG.y6',
  // echo -n 'Tr0ub4dor&3 imported' | argon2 saltsalt12345678 -id -t 2 -m 12 -p 1 -e (the reference argon2 CLI, Debian 12 package argon2 0~20171227)
  argon2id: '$argon2id$v=19$m=4096,t=2,p=1$c2FsdHNhbHQxMjM0NTY3OA$hsA8tpaN+t1wS5xmC5cYOKsP7Z6i5n9cEGohRhTXvR4',
  // python3: 'pbkdf2_sha256$%d$%s$%s' % (600000, salt, base64.b64encode(hashlib.pbkdf2_hmac('sha256', password.encode(), salt.encode(), 600000)).decode())
  // with salt = 'Qm9mZ3JhbHVzYWx0' (what Django's PBKDF2PasswordHasher.encode writes)
  pbkdf2Sha256: 'pbkdf2_sha256$600000$Qm9mZ3JhbHVzYWx0$j2TI2tqFiLS7m4ZIS6vTPUbPHPCWekxElVO0ZsVFhw0=',
  // python3: k = hashlib.scrypt(password.encode(), salt=bytes(range(16)), n=2**14, r=8, p=1, dklen=32), written as
  // 'scrypt$16384$8$1$' + base64url(salt) + '$' + base64url(k), unpadded (Latchkey's format, older parameters)
  scrypt: 'scrypt$16384$8$1$AAECAwQFBgcICQoLDA0ODw$SXrYmCrdYx3cVRJS_YuYwJIvmQYeGuIeTOnAafL5YdY',
} as const
