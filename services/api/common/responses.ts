/** A response a protocol has fully encoded, for the route to send as it is. */
export interface EncodedResponse {
  status: number;
  mediaType: string;
  body: string;
}
