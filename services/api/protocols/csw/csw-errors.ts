/**
 * CSW exceptions: OWS exception codes with their HTTP status (CSW 3.0, OGC 12-176r7 Table 10;
 * Cairn answers 2.0.2 requests with the same statuses), and the mapping of the project's other
 * errors onto them. Handlers throw; ./errors.ts renders.
 */
import {
  CairnError,
  FilterError,
  InvalidParameterError,
  NotFoundError,
  PayloadTooLargeError,
  QueryLimitError,
  ServiceUnavailableError,
  UnknownParameterError,
  UnsupportedFormatError,
} from '../../../../shared/errors/index.js';
import { XmlParseError } from '../../../../shared/xml/index.js';

/** The OWS exception codes Cairn raises (plus CSW 3.0 NotFound). */
export type OwsExceptionCode =
  | 'MissingParameterValue'
  | 'InvalidParameterValue'
  | 'VersionNegotiationFailed'
  | 'InvalidUpdateSequence'
  | 'OperationNotSupported'
  | 'OptionNotSupported'
  | 'NotFound'
  | 'NoApplicableCode';

/** HTTP status of each code (NoApplicableCode carries its own). */
const STATUS: Readonly<Record<Exclude<OwsExceptionCode, 'NoApplicableCode'>, number>> = {
  MissingParameterValue: 400,
  InvalidParameterValue: 400,
  VersionNegotiationFailed: 400,
  InvalidUpdateSequence: 400,
  OperationNotSupported: 501,
  OptionNotSupported: 501,
  NotFound: 404,
};

/** An error with an OWS exception code; the message is shown to the client. */
export class CswError extends CairnError {
  readonly exceptionCode: OwsExceptionCode;

  constructor(
    exceptionCode: OwsExceptionCode,
    locator: string | undefined,
    message: string,
    status?: number,
  ) {
    const httpStatus =
      status ?? (exceptionCode === 'NoApplicableCode' ? 400 : STATUS[exceptionCode]);
    super(
      `CSW_${exceptionCode.toUpperCase()}`,
      httpStatus,
      message,
      true,
      locator === undefined ? {} : { locator },
    );
    this.exceptionCode = exceptionCode;
  }
}

/** A required parameter is absent (400). */
export function missingParameter(locator: string, message?: string): CswError {
  return new CswError(
    'MissingParameterValue',
    locator,
    message ?? `Missing required parameter "${locator}"`,
  );
}

/** A parameter has a value the server does not accept (400). */
export function invalidParameter(locator: string, message: string): CswError {
  return new CswError('InvalidParameterValue', locator, message);
}

/** A valid option the server does not implement (501). */
export function optionNotSupported(locator: string, message: string): CswError {
  return new CswError('OptionNotSupported', locator, message);
}

/** An operation the server does not implement (501). */
export function operationNotSupported(operation: string): CswError {
  return new CswError(
    'OperationNotSupported',
    'request',
    `Operation "${operation}" is not supported by this catalogue`,
  );
}

/** What an ExceptionReport shows for an error. */
export interface OwsException {
  status: number;
  exceptionCode: OwsExceptionCode;
  locator?: string | undefined;
  text: string;
}

/** Locators of the shared errors that name a parameter by another spelling. */
const LOCATOR_ALIASES: Readonly<Record<string, string>> = {
  filter: 'Constraint',
  SortBy: 'SortBy',
};

/**
 * Maps any error to the exception an ExceptionReport shows. Errors that may not be exposed are
 * replaced by a generic NoApplicableCode text (the caller logs the original).
 */
export function toOwsException(error: CairnError): OwsException {
  if (error instanceof CswError) {
    return {
      status: error.status,
      exceptionCode: error.exceptionCode,
      locator: error.locator,
      text: error.message,
    };
  }
  if (!error.expose) {
    return { status: 500, exceptionCode: 'NoApplicableCode', text: 'An internal error occurred' };
  }
  if (error instanceof FilterError) {
    return {
      status: 400,
      exceptionCode: 'InvalidParameterValue',
      locator: 'Constraint',
      text: error.message,
    };
  }
  if (
    error instanceof InvalidParameterError ||
    error instanceof QueryLimitError ||
    error instanceof UnknownParameterError ||
    error instanceof UnsupportedFormatError
  ) {
    const locator = error.locator && (LOCATOR_ALIASES[error.locator] ?? error.locator);
    return { status: 400, exceptionCode: 'InvalidParameterValue', locator, text: error.message };
  }
  if (error instanceof NotFoundError) {
    return { status: 404, exceptionCode: 'NotFound', locator: error.locator, text: error.message };
  }
  if (error instanceof XmlParseError) {
    return { status: 400, exceptionCode: 'NoApplicableCode', text: error.message };
  }
  if (error instanceof PayloadTooLargeError || error instanceof ServiceUnavailableError) {
    return { status: error.status, exceptionCode: 'NoApplicableCode', text: error.message };
  }
  return {
    status: error.status,
    exceptionCode: 'NoApplicableCode',
    locator: error.locator,
    text: error.message,
  };
}
