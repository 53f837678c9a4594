#include "recordstatus.h"

namespace verity {

RecordStatus::RecordStatus(const QString &word)
    : m_text(word)
{
    const QString read = word.trimmed().toLower();
    if (read.isEmpty())
        m_state = State::Missing;
    else if (read == u"succeeded")
        m_state = State::Succeeded;
    else if (read == u"pending" || read == u"requires_action")
        m_state = State::Pending;
    else if (read == u"failed")
        m_state = State::Failed;
    else if (read == u"canceled" || read == u"cancelled") // Stripe's spelling, and an export's
        m_state = State::Canceled;
    else
        m_state = State::Other;
}

} // namespace verity
