import type { Capability } from '../accounts/capabilities.js';
import type { Principal } from '../accounts/tokens.js';
import type { Attribution } from './attribution.js';
import type { ServiceCost } from './openapi.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller; null on routes without authentication. */
    principal: Principal | null;
    /** Null only while the request is being set up. */
    attribution: Attribution | null;
    /** False when X-Service-Session-ID was invalid or repeated (rejected by authenticated routes). */
    sessionHeaderValid: boolean;
  }
  interface FastifySchema {
    /** Relative weight of the operation, published in the OpenAPI document. */
    'x-service-cost'?: ServiceCost;
  }
  interface FastifyContextConfig {
    /** The capability an authenticated route requires. */
    capability?: Capability;
    /** Marks the generated 405 routes so they are not mistaken for real ones. */
    methodNotAllowed?: boolean;
  }
}
