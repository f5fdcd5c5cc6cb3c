import { expect } from 'chai';
import type { NextFunction, Request, Response } from 'express';
import { onlyWhen } from '../../services/api/app.js';
import { isAdminPath } from '../../services/api/protocols/admin/index.js';

const at = (path: string, method = 'GET') => ({ path, method }) as Request;

describe('app: routers the searches skip', () => {
  it('sends to the admin routers exactly the paths Express would match under /admin', () => {
    for (const path of ['/admin', '/admin/', '/admin/jobs', '/ADMIN/Jobs', '/Admin/sources/x']) {
      expect(isAdminPath(at(path)), path).to.equal(true);
    }
    for (const path of ['/', '/search', '/administration', '/collections/admin', '/csw']) {
      expect(isAdminPath(at(path)), path).to.equal(false);
    }
  });

  it('runs the handler only on the requests accepted, and passes the others on', () => {
    const seen: string[] = [];
    const handler = onlyWhen(
      (request) => request.method !== 'GET',
      (request, _response, next) => {
        seen.push(request.method);
        next();
      },
    );
    let passed = 0;
    const next: NextFunction = () => {
      passed += 1;
    };
    handler(at('/x', 'GET'), {} as Response, next);
    handler(at('/x', 'POST'), {} as Response, next);
    expect(seen).to.deep.equal(['POST']);
    expect(passed).to.equal(2);
  });
});
