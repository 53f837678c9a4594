#pragma once
// What a provider says became of a record it keeps: a refund, a pickup, a message. Its word
// ("succeeded", "canceled", Stripe's "requires_action", a CSV export's "Cancelled") is read
// once, where the provider's answer is parsed; every rule asks the reading, never the word.

#include <QString>
#include <QStringView>

namespace verity {

class RecordStatus
{
public:
    enum class State {
        Missing, // the provider gave none
        Succeeded,
        Pending, // "pending", "requires_action": it may still go through
        Failed,
        Canceled,
        Other, // a word Verity does not know: treated as one that may have gone through
    };

    RecordStatus() = default;
    // Implicit: a provider's word is a status.
    RecordStatus(const QString &word);

    const QString &text() const { return m_text; } // as the provider wrote it, for people
    bool isEmpty() const { return m_text.isEmpty(); }
    State state() const { return m_state; }
    // Failed or canceled: it did not go through and never will (a refund moved no money).
    bool didNotGoThrough() const { return m_state == State::Failed || m_state == State::Canceled; }

    bool operator==(const RecordStatus &other) const { return m_text == other.m_text; }

private:
    QString m_text;
    State m_state = State::Missing;
};

} // namespace verity
