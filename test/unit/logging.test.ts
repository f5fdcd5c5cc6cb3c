import { expect } from 'chai';
import { redactSecrets } from '../../shared/logging/index.js';

describe('log redaction', () => {
  it('replaces secret-looking keys at any depth', () => {
    const redacted = redactSecrets({
      headers: { authorization: 'Bearer abc.def.ghi', accept: 'application/json' },
      body: { client_secret: 's3cret', nested: [{ refresh_token: 'x' }] },
    });
    expect(redacted).to.deep.equal({
      headers: { authorization: '[REDACTED]', accept: 'application/json' },
      body: { client_secret: '[REDACTED]', nested: [{ refresh_token: '[REDACTED]' }] },
    });
  });

  it('removes bearer tokens and JWTs from free text', () => {
    const text = redactSecrets(
      'call failed with Bearer eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl for eyJ0eXAi.eyJhdWQi.sig',
    );
    expect(text).to.equal('call failed with Bearer [REDACTED] for [REDACTED]');
  });
});
