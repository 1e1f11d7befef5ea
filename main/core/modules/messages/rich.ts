import { ApiError } from '../../../../shared/errors.ts';
import type { Scope } from '../../runtime.ts';
import type { ContactRow } from '../contacts/repo.ts';
import type { MessagesContext } from './context.ts';
import type { StoredFields } from './model.ts';
import { mediaFactsJson } from './model.ts';

/**
 * What a rich send adds to a message's fields (design.md §5 "Media, reactions, quotes"): the
 * file of a media message, and the message a reply quotes.
 */
export function richParts(ctx: MessagesContext) {
  const { d, repo } = ctx;

  /**
   * The context of a send that quotes one of the recipient's messages (`replyToMessageId`): our
   * id, and the provider's the channel needs (a remote one cannot quote what it never carried).
   */
  function quoted(
    scope: Scope,
    contact: ContactRow,
    replyToMessageId: string | undefined,
  ): Pick<StoredFields, 'context_message_id' | 'context_channel_id'> {
    if (replyToMessageId === undefined) return {};
    const q = repo.byId(replyToMessageId);
    if (
      !q ||
      q.workspace_id !== scope.workspaceId ||
      q.environment !== scope.environment ||
      q.contact_id !== contact.id ||
      q.type === 'note' ||
      q.type === 'reaction'
    ) {
      throw new ApiError(
        'validation_error',
        `replyToMessageId names no message of this conversation that can be quoted`,
        { param: 'replyToMessageId' },
      );
    }
    if (
      !q.channel_message_id &&
      d.channelFor(scope.workspaceId, scope.environment).kind === 'remote'
    ) {
      throw new ApiError(
        'validation_error',
        `message ${q.id} never reached WhatsApp, so it cannot be quoted there`,
        { param: 'replyToMessageId' },
      );
    }
    return { context_message_id: q.id, context_channel_id: q.channel_message_id };
  }

  /** A media message's fields: a stored file of the scope, its caption and (documents) name. */
  function mediaFields(
    scope: Scope,
    body: { mediaId: string; caption?: string | undefined; fileName?: string | undefined },
  ): StoredFields {
    let media;
    try {
      media = d.media.find(scope, body.mediaId);
    } catch (e) {
      if (e instanceof ApiError) throw new ApiError(e.code, e.message, { param: 'mediaId' });
      throw e;
    }
    if (media.status !== 'ready') {
      throw new ApiError(
        'invalid_state',
        `media ${media.id} is ${media.status}: only a stored file can be sent`,
        { param: 'mediaId', details: { status: media.status } },
      );
    }
    if (body.caption && (media.kind === 'audio' || media.kind === 'sticker')) {
      throw new ApiError('validation_error', `WhatsApp sends a ${media.kind} without a caption`, {
        param: 'caption',
      });
    }
    if (body.fileName !== undefined && media.kind !== 'document') {
      throw new ApiError('validation_error', 'only a document is sent with a file name', {
        param: 'fileName',
      });
    }
    return {
      type: 'media',
      template_name: null,
      text: body.caption ?? '',
      variables: null,
      category: 'SERVICE',
      media_id: media.id,
      file_name: media.kind === 'document' ? (body.fileName ?? media.file_name) : null,
      media_json: mediaFactsJson(media),
    };
  }

  return { quoted, mediaFields };
}
