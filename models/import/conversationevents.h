#pragma once
// A conversation becomes a ticket's events: results paired with their calls, repeated call ids
// made unique, and each event fingerprinted by its place, so reading the file again changes
// nothing and two identical messages in one conversation stay two.

#include "conversation.h"
#include "importunit.h"

namespace verity {

// `fallbackAt` dates a conversation whose format carries no times (the file's modified time).
// A result with no call before it makes the whole conversation unreadable: the unit comes
// back with a rejection and no events.
// `contentHash`, when given, is part of the ticket's fingerprint: another conversation that
// claims the same id is then refused rather than appended (OTLP passes none, since its
// conversations grow batch by batch).
// `fallbackAt` dates a conversation with no times at all, and `fallbackDating` says what it is.
// `naming` BySource fingerprints each turn by its Turn::sourceId where it has one (a receiver's
// spans, which an exporter may send again in another batch); files keep ByPlace, as they
// always have, so a file imported before is still recognised.
enum class TurnNaming { ByPlace, BySource };
ImportUnit conversationUnit(const Conversation &conversation, const QString &format, qint64 fallbackAt,
                            const QString &contentHash = QString(),
                            TicketDating fallbackDating = TicketDating::FileModified,
                            TurnNaming naming = TurnNaming::ByPlace);

} // namespace verity
