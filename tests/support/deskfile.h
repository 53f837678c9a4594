#pragma once
// A desk's SQLite file shared by several processes, as the tests of its locks see it: which of
// its files this process still has open but another process deleted, what the sqlite3 shell (a
// process of its own, with SQLite's stock POSIX locks) reads from it, and a small conversation
// with an unknown refund to write into it.

#include "import/transcriptimporter.h"
#include "store/store.h"
#include "support/verityprocess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace verity::test {

// The files of the database at `path` (itself, -wal, -shm) that this process holds open after
// they were deleted: a live WAL deleted under an open connection is how a desk file loses writes.
inline QStringList deletedStoreFilesHeldOpen(const QString &path)
{
    const QString canonical = QFileInfo(path).absoluteFilePath();
    QStringList deleted;
    const QDir descriptors(QStringLiteral("/proc/self/fd"));
    for (const QString &fd : descriptors.entryList(QDir::Files | QDir::System | QDir::NoDotAndDotDot)) {
        const QString target = QFile::symLinkTarget(descriptors.filePath(fd));
        if (target.startsWith(canonical) && target.endsWith(QLatin1String(" (deleted)")))
            deleted << target;
    }
    return deleted;
}

// What the sqlite3 shell prints for `sql` on `path`, trimmed; "ERROR: ..." when it failed.
inline QString sqliteShell(const QString &path, const QString &sql)
{
    QProcess shell;
    shell.start(QStringLiteral("sqlite3"),
                {QStringLiteral("-cmd"), QStringLiteral(".timeout 10000"), path, sql});
    if (!shell.waitForFinished(60000) || shell.exitStatus() != QProcess::NormalExit || shell.exitCode() != 0)
        return QStringLiteral("ERROR: ") + QString::fromUtf8(shell.readAllStandardError()).trimmed();
    return QString::fromUtf8(shell.readAllStandardOutput()).trimmed();
}

// A conversation in Verity's own JSONL: ticket `ticket` reads its order and asks for a refund
// that times out (an unknown outcome, escalated). Written into `folder`; its path.
inline QString writeUnknownRefund(const QString &folder, const QString &ticket, int serial)
{
    const QString order = QStringLiteral("SU-%1").arg(90000 + serial);
    const QString at = QStringLiteral("2026-03-18T10:%1:%2Z")
                               .arg((serial / 60) % 60, 2, 10, QLatin1Char('0'))
                               .arg(serial % 60, 2, 10, QLatin1Char('0'));
    const QString lines =
            QStringLiteral(
                    R"({"type":"ticket_opened","ticket":"%1","at":"%3","subject":"Broken lamp","customer":{"name":"Test Buyer","email":"buyer@example.com"},"order":{"id":"%2","currency":"USD","items":[{"id":"LAMP-1","title":"Lamp","quantity":1,"amount_cents":4200}],"payment_intent":"pi_%2"},"seller":{"id":"harrow-lighting","name":"Harrow Lighting","balance_cents":50000,"balance_as_of":"2026-03-18T08:00:00Z"}}
{"type":"tool_call","ticket":"%1","at":"%3","call_id":"c1","tool":"issue_refund","arguments":{"order_id":"%2","item_id":"LAMP-1","amount_cents":4200}}
{"type":"tool_result","ticket":"%1","at":"%3","call_id":"c1","result":{"error":"refund failed: upstream timeout"},"duration_ms":5000}
)")
                    .arg(ticket, order, at);
    const QString path = QDir(folder).filePath(ticket + QStringLiteral(".jsonl"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(lines.toUtf8()) != lines.toUtf8().size())
        return QString();
    return path;
}

// Imports `transcript` through `store`, as the console's own connection writes.
inline bool importInto(Store &store, const QString &transcript)
{
    TranscriptImporter importer(store, ToolRegistry::builtIn());
    const ImportReport report = importer.importFile(transcript);
    if (!report.clean())
        qWarning("%s", qPrintable(report.summary()));
    return report.clean();
}

// Once every connection is closed: empty when SQLite finds the file intact and `verity audit
// verify` the chain whole, else what each said.
inline QString brokenAfterClose(const QString &path, const QProcessEnvironment &environment)
{
    const QString integrity = sqliteShell(path, QStringLiteral("PRAGMA integrity_check"));
    const VerityRun audit = runVerity(
            {QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), path}, environment);
    QString broken;
    if (integrity != QLatin1String("ok"))
        broken += QStringLiteral("integrity check: %1\n").arg(integrity);
    if (audit.exitCode != 0)
        broken += QStringLiteral("audit verify: %1%2").arg(audit.out, audit.err);
    return broken;
}

} // namespace verity::test
