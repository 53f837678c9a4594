#include "importjob.h"

#include "store/storefactory.h"
#include "transcriptimporter.h"

#include <QMetaObject>
#include <QThread>

namespace verity {

ImportJob::ImportJob(QString databasePath, RegistrySelection registries, QStringList files, QObject *parent)
    : QObject(parent)
    , m_databasePath(std::move(databasePath))
    , m_registries(std::move(registries))
    , m_files(std::move(files))
{
    qRegisterMetaType<QList<verity::ImportReport>>();
}

ImportJob::~ImportJob()
{
    if (m_thread) {
        m_cancelled = true;
        m_thread->wait();
        delete m_thread;
    }
}

void ImportJob::start()
{
    Q_ASSERT(!m_thread);
    m_thread = QThread::create([this] {
        const QList<ImportReport> reports = run();
        QMetaObject::invokeMethod(
                this, [this, reports] { emit finished(reports); }, Qt::QueuedConnection);
    });
    m_thread->start();
}

QList<ImportReport> ImportJob::run()
{
    QList<ImportReport> reports;
    Expected<std::unique_ptr<Store>> store = openStore(m_databasePath);
    if (!store) {
        for (const QString &file : std::as_const(m_files)) {
            ImportReport report;
            report.path = file;
            report.fatal = store.message();
            reports.append(report);
        }
        return reports;
    }
    TranscriptImporter importer(**store, m_registries);
    for (int index = 0; index < m_files.size(); ++index) {
        importer.setProgress([this, index](qint64 done, qint64 total) {
            emit progress(index, done, total);
            return !m_cancelled.load();
        });
        reports.append(importer.importFile(m_files.at(index)));
        if (m_cancelled)
            break;
    }
    return reports;
}

QString demoDataResource()
{
    return QStringLiteral(":/verity/demo/march-incident.jsonl");
}

} // namespace verity
