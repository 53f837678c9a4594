#pragma once
// File > Import and Tools > Classify tools, for the console's window: transcripts read into the
// store in the background, with progress and a Cancel; what came of them said in a box; and
// the tools the registry did not know classified, saved to the user's registry and their calls
// read again. Its dialogs are the window's, so they sit on it and close with it.

#include "domain/registrychoice.h"
#include "import/importreport.h"

#include <QObject>

#include <functional>

class QMainWindow;
class QProgressDialog;
class QWidget;

namespace verity {

class ClassifyToolsDialog;
class ImportJob;
class RoleLimits;
class Store;
struct ToolSpec;

class TranscriptImportFlow : public QObject
{
    Q_OBJECT

public:
    // `databasePath` is where background imports open their own connection. `registrySource`:
    // the registries in force, and the user's file where classifications are saved.
    // `readOnlyReason` not empty: nothing is imported or classified, and an import says why.
    TranscriptImportFlow(Store &store, QString databasePath, RegistrySource registrySource,
                         QString readOnlyReason, const RoleLimits &limits, QMainWindow &window);

    // The registries calls are read with: the command line's choice, then the user's classifications.
    const RegistrySelection &registries() const { return m_registries; }
    // How File > Import asks for files (a file dialog by default).
    void setFileChooser(std::function<QStringList(QWidget *)> chooser) { m_chooseFiles = std::move(chooser); }
    // File > Import: asks for files, then imports them.
    void chooseAndImport();
    void importFiles(const QStringList &files);
    // Tools the registry did not know at import: classify them, save to the user's registry
    // and read their calls again.
    ClassifyToolsDialog *classifyTools();
    // Saves one classification and reclassifies the affected calls; says what it did, or why not.
    Expected<QString> applyClassification(const ToolSpec &spec);
    // Calls of tools the registry now knows but whose class was never read into them: read now.
    void readAgainKnownTools();

signals:
    void importFinished(const QList<verity::ImportReport> &reports);
    // Calls were imported or read again: every view reads the store again.
    void storeChanged();
    void registriesChanged(const verity::RegistrySelection &registries);

private:
    void finishImport(const QList<ImportReport> &reports);
    void showError(const QString &message);
    void showMessage(const QString &text, int timeoutMs = 0);

    Store &m_store;
    QString m_databasePath;
    RegistrySource m_registrySource;
    RegistrySelection m_registries;
    QString m_readOnlyReason;
    const RoleLimits &m_limits;
    QMainWindow &m_window;
    ImportJob *m_import = nullptr;
    QProgressDialog *m_importProgress = nullptr;
    std::function<QStringList(QWidget *)> m_chooseFiles;
};

} // namespace verity
