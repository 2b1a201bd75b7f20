import type { AttachmentPart } from '../../core/attachments';
import { Inbox } from '../../workflows/inbox';

const chart: AttachmentPart = { type: 'attachment', ref: 'e'.repeat(64), mediaType: 'image/png', size: 99, name: 'chart.png' };

describe('a session inbox carries attachments across continue-as-new', () => {
  it("keeps a waiting message's references, and a steering one's, in what it carries to the next run", () => {
    const inbox = new Inbox();
    inbox.accept('look at this', [chart]);
    inbox.acceptSteering('and this', [chart]);
    inbox.accept('no files');
    const carried = JSON.parse(JSON.stringify(inbox.carry()));
    expect(carried.waiting).toEqual([
      { ticket: 0, content: 'look at this', attachments: [chart] },
      { ticket: 2, content: 'no files' },
    ]);
    const next = new Inbox(carried);
    expect(next.takeNext()).toEqual({ ticket: 1, content: 'and this', attachments: [chart] });
    expect(next.takeNext()).toEqual({ ticket: 0, content: 'look at this', attachments: [chart] });
  });
});
