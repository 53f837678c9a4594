#pragma once
// What a reader hands the importer: the events of one native line or of one whole
// conversation, stored together or not at all, with where they came from in the file.

#include "domain/toolhint.h"
#include "nativeevent.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace verity {

struct FilePlace
{
    qint64 line = 0; // 1-based line of a JSONL file; 0 when the file is one JSON document
    qint64 byteOffset = -1; // where the unit begins in the file, when known
    QString text() const // "12" or "byte 3456"
    {
        return line > 0 ? QString::number(line) : QStringLiteral("byte %1").arg(qMax<qint64>(byteOffset, 0));
    }
};

struct ImportUnit
{
    FilePlace place;
    QString format; // transcriptFormatId() of what was read
    QString conversation; // the conversation's id; empty for a native line
    QList<NativeEvent> events;
    QString rejection; // set: nothing of this unit is stored, and this says why
    // A rejected ticket_opened line: the ticket it would have opened, so that its later lines
    // say why it is not open.
    QString refusedOpening;
    QStringList notices; // worth saying, stored anyway
    QStringList tools; // every tool the unit calls, to choose a registry profile
    QHash<QString, ToolHint> toolHints; // Conversation::toolHints, of the tools it calls
    // Tickets this conversation takes over: the receiver's tickets of traces it now names,
    // opened before the span naming them came (renamed, or joined to the conversation's).
    QStringList absorbs;
    // Only the taking over: when none of `absorbs` is stored, nothing is (no empty ticket opens).
    bool absorbOnly = false;
    QString declaredProfile; // the profile the file names for itself ("tau-airline" from a τ² domain_name)
    // Its ticket stands for no conversation (an MCP session that named none): its writes are keyed
    // without the ticket's facts, so that the same write from another session is the same intent.
    bool keysAcrossTickets = false;
    // No conversation read so far goes on further down the file: a batch may end here without
    // leaving a ticket half stored.
    bool settled = true;
};

} // namespace verity
