import type { AccessLevel } from '../../storage/records.ts'

export interface AccessDescription {
  can: string[]
  cannot: string[]
}

const READ = [
  'See posts from your timeline, including protected posts you can see.',
  'See your profile, your lists and who you follow.',
]
const WRITE = ['Post and delete posts for you.', 'Follow, unfollow, like and repost for you.', 'Update your profile.']
const DIRECT_MESSAGES = ['Read and send your direct messages.']
const NEVER = ['See your email address.', 'See or change your password.']

/** What an app may and may not do at each access level, in plain sentences. */
export const ACCESS_DESCRIPTIONS: Record<AccessLevel, AccessDescription> = {
  read: {
    can: READ,
    cannot: ['Post, follow or like for you.', 'Read or send your direct messages.', 'Update your profile.', ...NEVER],
  },
  'read-write': {
    can: [...READ, ...WRITE],
    cannot: ['Read or send your direct messages.', ...NEVER],
  },
  'read-write-directmessages': {
    can: [...READ, ...WRITE, ...DIRECT_MESSAGES],
    cannot: NEVER,
  },
}
