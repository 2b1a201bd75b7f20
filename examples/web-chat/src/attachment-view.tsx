import type { FileUIPart } from 'ai';
import { formatSize, sizeOf } from './attached-files';

const imageTypes = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/**
 * A message's images as thumbnails and its other files as chips (name, type, size). The bytes come from a data URL
 * (a message just sent from this page) or from the chat's attachment route (a conversation read back), which serves
 * only this chat's owner, and anything but an image only as a download (docs/web.md, "Attachments").
 */
export function AttachmentView({ parts }: { parts: FileUIPart[] }) {
  if (parts.length === 0) return null;
  return (
    <div className="attachments" data-testid="attachments">
      {parts.map((part, index) => {
        const name = part.filename ?? 'attachment';
        const size = sizeOf(part);
        const label = `${name} (${part.mediaType}${size === undefined ? '' : `, ${formatSize(size)}`})`;
        if (imageTypes.includes(part.mediaType)) {
          const thumbnail = <img src={part.url} alt={name} data-testid="attachment-thumbnail" />;
          // The whole image in a tab of its own, from the route (served with a sandboxing CSP); a browser opens no
          // data URL as a page, so a message just sent shows the thumbnail alone until it is read back.
          return (
            <figure key={index} className="thumbnail" title={label}>
              {part.url.startsWith('data:') ? (
                thumbnail
              ) : (
                <a href={part.url} target="_blank" rel="noreferrer">
                  {thumbnail}
                </a>
              )}
            </figure>
          );
        }
        // A download, never a page of ours: the route answers Content-Disposition: attachment too.
        return (
          <a key={index} className="file-chip" href={part.url} download={name} data-testid="attachment-file" title={label}>
            <span className="file-name">{name}</span>
            <span className="file-facts">
              {part.mediaType}
              {size === undefined ? '' : ` · ${formatSize(size)}`}
            </span>
          </a>
        );
      })}
    </div>
  );
}
