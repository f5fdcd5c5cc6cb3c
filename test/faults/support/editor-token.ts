/**
 * A valid token with the write role (user alice of the cairn-test realm, from the shared
 * Keycloak), renewed in the background so that long fault tests never send an expired one.
 */
import { requireKeycloak, userTokens } from '../../integration/keycloak/keycloak-support.js';

/** Renew well before the realm's 300 s access-token lifespan runs out. */
const RENEW_EVERY_MS = 120_000;

export class EditorToken {
  private timer: NodeJS.Timeout | undefined;

  private constructor(private token: string) {}

  /** Fails (never skips) when Keycloak is not reachable. */
  static async obtain(): Promise<EditorToken> {
    await requireKeycloak();
    const holder = new EditorToken((await userTokens('alice')).accessToken);
    holder.timer = setInterval(() => {
      userTokens('alice').then(
        (tokens) => (holder.token = tokens.accessToken),
        () => undefined, // keep the current token; the next round tries again
      );
    }, RENEW_EVERY_MS);
    holder.timer.unref();
    return holder;
  }

  get current(): string {
    return this.token;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
