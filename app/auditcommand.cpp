#include "auditcommand.h"

#include "audit/auditaction.h"
#include "audit/auditlog.h"
#include "domain/displaytext.h"
#include "domain/hiddencharacters.h"
#include "domain/registrychoice.h"
#include "store/storefactory.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

namespace verity {

namespace {

constexpr int listPageSize = 1000;

const QString usage = QStringLiteral(
        "Usage: verity audit ACTION [--db PATH|URI] [--json]\n"
        "\n"
        "Actions:\n"
        "  verify   check the audit log's hash chain, the evidence each entry cites, and that every\n"
        "           settlement and ledger row is as the entry that made it left it; names the first\n"
        "           mismatch (exit status 0 intact, 1 broken, 2 could not run)\n"
        "  head     print the chain's head: the newest entry's hash and the chain's length. Keep it\n"
        "           elsewhere; `verify --head HASH` then also catches entries removed or rewritten\n"
        "           after it was taken\n"
        "  list     print the audit entries, oldest first\n"
        "\n"
        "Options:\n"
        "  --db PATH|URI   the database file (default: %1), or a team's PostgreSQL database\n"
        "                  (postgresql://[user@]host[:port]/dbname)\n"
        "  --head HASH     (verify) the head taken earlier with `verity audit head`\n"
        "  --json          print the result as JSON\n");

QJsonValue optionalJson(const std::optional<qint64> &value)
{
    return value ? QJsonValue(*value) : QJsonValue(QJsonValue::Null);
}

QJsonObject entryJson(const AuditEntry &entry)
{
    return QJsonObject{
            {QStringLiteral("seq"), entry.seq},
            {QStringLiteral("at_ms"), entry.at},
            {QStringLiteral("at"),
             QDateTime::fromMSecsSinceEpoch(entry.at, Qt::UTC).toString(Qt::ISODateWithMs)},
            {QStringLiteral("operator"), entry.operatorName},
            {QStringLiteral("action"), entry.action},
            {QStringLiteral("action_words"), auditaction::words(entry.action)},
            {QStringLiteral("escalation"), optionalJson(entry.escalationId)},
            {QStringLiteral("detail"), entry.detail},
            {QStringLiteral("evidence_sha256"),
             entry.evidenceSha256.isEmpty() ? QJsonValue(QJsonValue::Null)
                                            : QJsonValue(entry.evidenceSha256)},
            {QStringLiteral("prev_hash"), entry.prevHash},
            {QStringLiteral("hash"), entry.hash},
    };
}

int printHead(Store &store, bool json, QTextStream &out, QTextStream &err)
{
    const Expected<AuditHead> head = AuditLog::head(store);
    if (!head) {
        err << "verity audit head: " << head.message() << "\n";
        return 2;
    }
    if (json)
        out << QJsonDocument(QJsonObject{{QStringLiteral("database"), store.location()},
                                         {QStringLiteral("length"), head->length},
                                         {QStringLiteral("hash"), head->hash}})
                        .toJson();
    else
        out << head->hash << "  " << head->length << (head->length == 1 ? " entry\n" : " entries\n");
    return 0;
}

int verifyChain(Store &store, const QString &head, bool json, QTextStream &out, QTextStream &err)
{
    // Each write's recorded result is read again by the rules an import here reads it by.
    const RegistrySelection registries = automaticRegistries(defaultUserRegistryPath());
    const Expected<AuditVerification> result = AuditLog::verify(store, head, &registries);
    if (!result) {
        err << "verity audit verify: " << result.message() << "\n";
        return 2;
    }
    if (json) {
        out << QJsonDocument(
                       QJsonObject{
                               {QStringLiteral("database"), store.location()},
                               {QStringLiteral("intact"), result->intact},
                               {QStringLiteral("entries"), result->entriesChecked},
                               {QStringLiteral("first_broken"), optionalJson(result->firstBrokenSeq)},
                               {QStringLiteral("reason"),
                                result->intact ? QJsonValue(QJsonValue::Null) : QJsonValue(result->reason)},
                       })
                        .toJson();
    } else if (result->intact) {
        out << "audit chain intact: " << result->entriesChecked
            << (result->entriesChecked == 1 ? " entry\n" : " entries\n");
    } else {
        if (result->firstBrokenSeq)
            out << "audit chain broken at entry " << *result->firstBrokenSeq << ": " << result->reason
                << "\n";
        else
            out << "audit chain broken: " << result->reason << "\n";
    }
    return result->intact ? 0 : 1;
}

// Page by page, written as it is read, so a long log never sits in memory whole.
int listEntries(Store &store, bool json, QTextStream &out, QTextStream &err)
{
    if (json) // the opening of {"database": ..., "entries": [ ... ]}, without its closing brace
        out << QJsonDocument(QJsonObject{{QStringLiteral("database"), store.location()}})
                        .toJson(QJsonDocument::Compact)
                        .chopped(1)
            << ",\"entries\":[";
    bool first = true;
    for (qint64 offset = 0;; offset += listPageSize) {
        Expected<QList<AuditEntry>> page = store.auditEntries(offset, listPageSize);
        if (!page) {
            out.flush();
            err << "\nverity audit list: " << page.message() << "\n";
            return 2;
        }
        for (const AuditEntry &entry : *page) {
            if (json) {
                out << (first ? "\n" : ",\n")
                    << QJsonDocument(entryJson(entry)).toJson(QJsonDocument::Compact);
            } else {
                const QString escalation =
                        entry.escalationId ? QString::number(*entry.escalationId) : QStringLiteral("-");
                const QString evidence =
                        entry.evidenceSha256.isEmpty() ? QStringLiteral("-") : entry.evidenceSha256.left(12);
                out << QStringLiteral("%1  %2  %3  %4  escalation %5  evidence %6  %7\n")
                                .arg(entry.seq, 6)
                                .arg(formatTime(entry.at))
                                .arg(visibleText(entry.operatorName), -12)
                                .arg(auditaction::words(entry.action), -12)
                                .arg(escalation, -6)
                                .arg(evidence, -12)
                                .arg(visibleText(
                                        entry.detail.simplified())); // an entry cannot steer the terminal
            }
            first = false;
        }
        if (page->size() < listPageSize)
            break;
    }
    if (json)
        out << "\n]}\n";
    else if (first)
        out << "the audit log is empty\n";
    return 0;
}

} // namespace

int runAuditCommand(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    const QString usageText = usage.arg(defaultStoreLocation());

    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption db(QStringLiteral("db"), QStringLiteral("The database file."),
                                QStringLiteral("PATH"), defaultStoreLocation());
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print the result as JSON."));
    const QCommandLineOption head(QStringLiteral("head"), QStringLiteral("The head taken earlier."),
                                  QStringLiteral("HASH"));
    parser.addOptions({db, json, head});
    parser.addPositionalArgument(QStringLiteral("ACTION"), QStringLiteral("verify, head or list"));
    if (!parser.parse(arguments)) {
        err << "verity audit: " << parser.errorText() << "\n\n" << usageText;
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        out << usageText;
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (positional.size() != 1
        || (action != QStringLiteral("verify") && action != QStringLiteral("list")
            && action != QStringLiteral("head"))) {
        if (positional.isEmpty())
            err << "verity audit: name an action\n\n";
        else if (positional.size() > 1)
            err << "verity audit: one action at a time, got: " << positional.join(u' ') << "\n\n";
        else
            err << "verity audit: unknown action \"" << action << "\"\n\n";
        err << usageText;
        return 2;
    }

    // Opening creates a missing file; a mistyped path must not read as an empty, intact log.
    const QString path = parser.value(db);
    const QFileInfo file(path);
    if (isFileLocation(path) && !file.exists()) {
        err << "verity audit " << action << ": " << path << ": no such database file\n";
        return 2;
    }
    if (isFileLocation(path) && !file.isFile()) {
        err << "verity audit " << action << ": " << path << ": not a database file\n";
        return 2;
    }
    // Every audit action only reads: a database in a read-only folder can be verified.
    Expected<std::unique_ptr<Store>> store = openStoreReadOnly(path);
    if (!store) {
        err << "verity audit " << action << ": " << store.message() << "\n";
        return 2;
    }
    if (parser.isSet(head) && action != QStringLiteral("verify")) {
        err << "verity audit " << action << ": --head is for verify\n";
        return 2;
    }
    const QString headHash = parser.value(head).trimmed().toLower();
    if (parser.isSet(head)
        && (headHash.size() != 64
            || QByteArray::fromHex(headHash.toLatin1()).toHex() != headHash.toLatin1())) {
        err << "verity audit verify: --head: expected the 64 hex digits `verity audit head` printed, got \""
            << parser.value(head) << "\"\n";
        return 2;
    }
    if (action == QStringLiteral("verify"))
        return verifyChain(**store, headHash, parser.isSet(json), out, err);
    if (action == QStringLiteral("head"))
        return printHead(**store, parser.isSet(json), out, err);
    return listEntries(**store, parser.isSet(json), out, err);
}

} // namespace verity
