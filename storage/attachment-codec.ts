import { ContentCodec } from './content-codec';
import type { EncryptionKeyRing } from './encryption-keys';

/**
 * How an attachment's bytes become what the store keeps, and the name (`ref`) they are kept under: content-addressed
 * and, with encryption keys, sealed and named by an HMAC (content-codec.ts says why). The same file is one object,
 * stored once however often it is sent.
 */
export class AttachmentCodec extends ContentCodec {
  constructor(keys: EncryptionKeyRing | undefined) {
    super(keys, 'durable-agent attachment address', 'attachment');
  }
}
