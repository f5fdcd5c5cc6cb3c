/**
 * The state of a sign-in in progress (state, nonce, PKCE verifier, redirect URI, return path)
 * sealed into the browser's sign-in cookie instead of kept on the server: AES-256-GCM with a
 * key derived (HKDF-SHA256) from a secret every API process of the deployment shares, the
 * expiry inside the sealed text and the cookie's name as associated data. Nothing is stored
 * per sign-in, so anonymous sign-in starts, however many, cannot crowd out a real user's.
 *
 * A cookie that was altered, sealed with another key, or is past its expiry opens to nothing.
 * Whoever holds the browser's cookie could present it twice, but the authorization code it
 * goes with is single-use at the provider and the cookie is cleared at the callback.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { PendingSignIn } from './oidc-sign-in.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bound to the cookie it travels in: a value moved to another cookie opens to nothing. */
const ASSOCIATED_DATA = Buffer.from('cairn_admin_sign_in');

/** Where the shared secret comes from: the configuration, Redis, or this process. */
export type SecretSource = () => Promise<Buffer>;

/** The 256-bit key of a secret (any length; HKDF-SHA256, fixed salt and purpose). */
export function deriveStateKey(secret: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'cairn', 'admin sign-in state', 32));
}

/** A random secret for one process (embedded mode: one process serves every request). */
export function processSecret(): SecretSource {
  const secret = randomBytes(32);
  return async () => secret;
}

/** Seals and opens sign-in state cookies (see the module comment). */
export class SignInStateSealer {
  private key?: Promise<Buffer> | undefined;

  constructor(
    private readonly secret: SecretSource,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cookie value carrying `pending` until `expiresAt` (ms since the epoch). */
  async seal(pending: PendingSignIn, expiresAt: number): Promise<string> {
    const key = await this.currentKey();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(ASSOCIATED_DATA);
    const plain = Buffer.from(JSON.stringify({ pending, expiresAt }));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The sign-in a cookie value carries, or undefined (absent, altered, foreign or expired). */
  async open(value: string | undefined): Promise<PendingSignIn | undefined> {
    if (!value || !/^[A-Za-z0-9_-]+$/.test(value) || value.length > 8192) return undefined;
    const bytes = Buffer.from(value, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    const key = await this.currentKey();
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(ASSOCIATED_DATA);
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
      const { pending, expiresAt } = JSON.parse(plain.toString()) as {
        pending: PendingSignIn;
        expiresAt: number;
      };
      return typeof expiresAt === 'number' && expiresAt > this.now() ? pending : undefined;
    } catch {
      return undefined; // altered or sealed with another key
    }
  }

  /** The key, derived once; a failed look-up (Redis down) is tried again next time. */
  private currentKey(): Promise<Buffer> {
    this.key ??= this.secret()
      .then(deriveStateKey)
      .catch((error: unknown) => {
        this.key = undefined;
        throw error;
      });
    return this.key;
  }
}
