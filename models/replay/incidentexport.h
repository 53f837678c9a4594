#pragma once
// One incident as one self-contained file that another Verity opens read-only: the ticket, its
// messages, calls and results, the HTTP and provider trace lines and the trainers' notes, with
// the buyer's personal data redacted (see redaction.h) consistently across all of it.
//
// How: the ticket is written as native JSONL through one BuyerDataRedactor, and that JSONL is
// imported into a new SQLite database next to the target with the same registry profile, so
// outcomes, intent keys and repeats are computed by the importer as for any file; the notes
// and a file_info table saying what the file is are added, the database is switched out of
// WAL (a single file, no side files) and renamed over the target only when all of it worked.
//
// Carried: what happened. Not carried: what the console did about it afterwards (escalation
// resolutions, provider lookups, ledger entries, payout marks, the audit log), so the export
// shows the incident as the agent left it, and a call settled later by a lookup shows its
// original outcome. Item titles, subject and notes are redacted as text; notes keep their
// authors (staff, not buyers).

#include "domain/expected.h"
#include "redaction.h"

#include <QHash>
#include <QString>

#include <memory>

namespace verity {

class ReplayStore;
class Store;

// The kind and version an incident export writes into its file_info table.
inline constexpr const char *incidentExportKind = "incident-export";
inline constexpr int incidentExportFormatVersion = 1;

struct IncidentExportSummary
{
    QString path; // the file written
    QString ticketExtId; // the ticket's id, the same in the export
    QString registry; // the registry profile that read its calls
    qint64 messages = 0;
    qint64 toolCalls = 0;
    qint64 traceEvents = 0;
    qint64 trainerNotes = 0;
    QList<RedactionCount> redactions;
    QString redactionSummary; // "1 name (9 places), 1 e-mail address (1 place)"
};

// Writes ticket `ticketId` of `source` to `path`. An existing file at `path` is replaced only
// when the export succeeded; nothing is left behind when it fails. `exportedAt` (ms since the
// epoch) is recorded in the file; 0 means now.
Expected<IncidentExportSummary> exportIncident(ReplayStore &source, qint64 ticketId, const QString &path,
                                               qint64 exportedAt = 0);

struct OpenedIncidentExport
{
    std::unique_ptr<Store> store; // read-only: every write is refused
    qint64 ticketId = 0; // the exported ticket in `store`
    QHash<QString, QString> fileInfo; // kind, format_version, source_ticket, exported_at, ...
};

// Opens an incident export read-only. The error names the file and says what it is instead:
// not a Verity file, a Verity database that is not an incident export, made by a newer
// Verity, or unreadable.
Expected<OpenedIncidentExport> openIncidentExport(const QString &path);

} // namespace verity
