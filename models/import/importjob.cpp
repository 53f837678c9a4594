#include "importjob.h"

#include "nativeimporter.h"
#include "store/storefactory.h"

#include <QMetaObject>
#include <QThread>

namespace verity {

ImportJob::ImportJob(QString databasePath, ToolRegistry registry, QStringList files, QObject *parent)
    : QObject(parent), m_databasePath(std::move(databasePath)), m_registry(std::move(registry)),
      m_files(std::move(files))
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
        QMetaObject::invokeMethod(this, [this, reports] { emit finished(reports); }, Qt::QueuedConnection);
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
    NativeImporter importer(**store, m_registry);
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
