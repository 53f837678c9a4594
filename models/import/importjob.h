#pragma once
// Runs imports off the UI thread, on a store connection of its own, and reports progress
// and the result as signals. The window starts it and shows what it says; cancelling stops
// after the current batch, keeping what was committed.

#include "domain/registryselection.h"
#include "importreport.h"

#include <QObject>
#include <QStringList>

#include <atomic>

class QThread;

namespace verity {

class ImportJob : public QObject
{
    Q_OBJECT

public:
    ImportJob(QString databasePath, RegistrySelection registries, QStringList files,
              QObject *parent = nullptr);
    ~ImportJob() override;

    void start();
    void cancel() { m_cancelled = true; }

signals:
    void progress(int fileIndex, qint64 bytesRead, qint64 bytesTotal);
    void finished(const QList<verity::ImportReport> &reports);

private:
    QList<ImportReport> run();

    QString m_databasePath;
    RegistrySelection m_registries;
    QStringList m_files;
    std::atomic<bool> m_cancelled{false};
    QThread *m_thread = nullptr;
};

// The March incident and the weeks around it, as shipped in the resources.
QString demoDataResource();

} // namespace verity
