#pragma once
// Settles an unknown write in the system it went to, the way the registry names
// it (RecordLookupSpec): list the records the lookup's filter selects, every
// page, and find the ones that carry the call's intent key. A read, so
// transport errors, 5xx and 429 are retried with the provider client's capped,
// jittered backoff; anything it cannot read is "could not tell", never "not
// found". Every HTTP exchange is kept as evidence, the API key redacted.

#include "domain/intentkey.h"
#include "domain/recordstatus.h"
#include "domain/toolregistry.h"
#include "providerclient.h"
#include "providerread.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

#include <optional>
#include <utility>

namespace verity {

// One call's lookup: what recordQueryFor() makes of the registry's spec and the
// call.
struct RecordQuery
{
    QString system; // "courier": for the words a person reads
    QString path; // "/v1/pickups", under the settings' base URL
    QList<std::pair<QString, QString>> filter; // query parameters and values: ("order", "SU-88316")
    QString key; // "metadata.intent_key", or a top-level field
    QString intentKey; // the value that record field must have
};

// Each filter parameter takes the call's argument of that name (text, or a
// whole number written in decimal), or the ticket's fact when the argument is
// missing or null, as intent keys do. An error names what is missing.
Expected<RecordQuery> recordQueryFor(const RecordLookupSpec &spec, const QString &argumentsJson,
                                     const TicketFacts &ticket, const QString &intentKey);

// A record as its system sent it, with the fields every lookup reads.
struct FoundRecord
{
    QString id;
    qint64 createdMs = 0; // from "created" (unix seconds); 0 when it has none
    RecordStatus status; // empty when it has none
    QJsonObject raw; // the whole object
};
// nullopt when the object has no id: nothing a person could be shown as
// evidence.
std::optional<FoundRecord> foundRecordFrom(const QJsonObject &object);

struct RecordLookupAnswer
{
    // Found: at least one record carries the key. NotFound: the whole list was
    // read and none does. CouldNotTell: anything else, with the reason; never
    // taken for "not performed".
    LookupVerdict verdict = LookupVerdict::CouldNotTell;
    QList<FoundRecord> records; // Found: every record that carries the key, oldest first
    QString reason;
    QList<HttpExchange> exchanges;
};

class RecordLookupOperation : public ProviderRead
{
    Q_OBJECT

public:
    // `settings` are the system's: its base URL and API key, the timeout, the
    // attempts of a page and the backoff.
    RecordLookupOperation(ProviderSettings settings, RecordQuery query, QObject *parent = nullptr);

    // Sends the first request; connect to progress() and finished() first. Once
    // only. cancel() finishes it at once as CouldNotTell "cancelled by the
    // operator".
    void start();
    const RecordLookupAnswer &answer() const { return m_answer; }

    // Starts it if need be and blocks (a local event loop) until it finishes: the
    // command line and tests.
    static RecordLookupAnswer waitFor(RecordLookupOperation *operation);

signals:
    void finished(const verity::RecordLookupAnswer &answer);

private:
    void askPage();
    QString step(int attempt) const override;
    void readAnswer(const ReplyRead &read) override;
    void stop(const QString &reason) override;
    // Keeps the records of a page and says whether more follow; nullopt: it
    // cannot be read, and the lookup has finished as CouldNotTell.
    std::optional<bool> readPage(const ReplyRead &read);
    void decide();
    void finish(LookupVerdict verdict, const QString &reason);

    RecordQuery m_query;
    QString m_startingAfter; // the page cursor: the last id read
    int m_page = 1;
    bool m_started = false;
    QList<FoundRecord> m_read; // every record of the list read so far
    RecordLookupAnswer m_answer;
};

} // namespace verity
