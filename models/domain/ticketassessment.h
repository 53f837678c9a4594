#pragma once
// What a ticket's tool calls add up to: how many writes, the worst outcome, which writes
// repeat an intent, and whether a person needs to look. Pure: the store feeds it the calls
// and writes back what it says.

#include "outcome.h"
#include "toolclass.h"

#include <QList>
#include <QSet>
#include <QString>

#include <optional>

namespace verity {

struct CallFacts
{
    qint64 id = 0;
    ToolClass toolClass = ToolClass::Unclassified;
    std::optional<Outcome> outcome; // writes only
    QString intentKey;              // empty when the key could not be made
    bool intentError = false;
};

struct TicketAssessment
{
    int writeCount = 0;
    std::optional<Outcome> worstOutcome;
    bool hasUnknown = false;
    bool hasRepeatedIntent = false;
    int duplicateEffects = 0; // repeated intents performed more than once
    bool needsAttention = false;
    QSet<qint64> repeatedCalls; // every call whose intent key another write on the ticket shares
};

TicketAssessment assessTicket(const QList<CallFacts> &calls);

} // namespace verity
