#include "transcriptimportflow.h"

#include "classifytoolsdialog.h"
#include "domain/displaytext.h"
#include "domain/userregistry.h"
#include "import/importjob.h"
#include "import/reclassifier.h"
#include "rolelimits.h"
#include "store/store.h"

#include <QFileDialog>
#include <QMainWindow>
#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QStatusBar>

namespace verity {

namespace {

// The command line has refused a --registry that cannot be used; should it have gone since,
// the window still opens, choosing per conversation.
RegistrySelection registriesFor(const RegistrySource &source)
{
    const Expected<RegistryChoice> choice = chooseRegistry(source);
    return choice ? choice->selection : automaticRegistries(source.userFile);
}

} // namespace

TranscriptImportFlow::TranscriptImportFlow(Store &store, QString databasePath, RegistrySource registrySource,
                                           QString readOnlyReason, const RoleLimits &limits,
                                           QMainWindow &window)
    : QObject(&window)
    , m_store(store)
    , m_databasePath(std::move(databasePath))
    , m_registrySource(std::move(registrySource))
    , m_registries(registriesFor(m_registrySource))
    , m_readOnlyReason(std::move(readOnlyReason))
    , m_limits(limits)
    , m_window(window)
{
    m_chooseFiles = [](QWidget *parentWidget) {
        return QFileDialog::getOpenFileNames(parentWidget, tr("Import transcripts"), QString(),
                                             tr("Transcripts (*.jsonl *.json *.ndjson);;All files (*)"));
    };
}

void TranscriptImportFlow::showMessage(const QString &text, int timeoutMs)
{
    m_window.statusBar()->showMessage(text, timeoutMs);
}

void TranscriptImportFlow::showError(const QString &message)
{
    showMessage(message, 15000);
}

void TranscriptImportFlow::chooseAndImport()
{
    const QStringList files = m_chooseFiles(&m_window);
    if (!files.isEmpty())
        importFiles(files);
}

void TranscriptImportFlow::importFiles(const QStringList &files)
{
    if (!m_readOnlyReason.isEmpty()) {
        showError(tr("%1: import into a database you can write instead.").arg(m_readOnlyReason));
        return;
    }
    if (const QString refused = m_limits.refusal(TeamRole::Support, tr("importing transcripts"));
        !refused.isEmpty()) {
        showError(refused);
        return;
    }
    if (m_import) {
        showMessage(tr("An import is already running."), 5000);
        return;
    }
    m_import = new ImportJob(m_databasePath, m_registries, files, this);
    m_importProgress =
            new QProgressDialog(tr("Importing %1…").arg(files.first()), tr("Cancel"), 0, 1000, &m_window);
    m_importProgress->setObjectName(QStringLiteral("importProgress"));
    m_importProgress->setMinimumDuration(300);
    m_importProgress->setAutoClose(false);
    m_importProgress->setAutoReset(false);
    connect(m_importProgress, &QProgressDialog::canceled, m_import, &ImportJob::cancel);
    connect(m_import, &ImportJob::progress, this, [this, files](int index, qint64 done, qint64 total) {
        if (!m_importProgress)
            return;
        m_importProgress->setLabelText(
                tr("Importing %1 (%2 of %3)…").arg(files.at(index)).arg(index + 1).arg(files.size()));
        m_importProgress->setValue(total > 0 ? int(done * 1000 / total) : 0);
    });
    connect(m_import, &ImportJob::finished, this, &TranscriptImportFlow::finishImport);
    m_import->start();
}

void TranscriptImportFlow::finishImport(const QList<ImportReport> &reports)
{
    m_import->deleteLater();
    m_import = nullptr;
    m_importProgress->deleteLater();
    m_importProgress = nullptr;
    emit storeChanged();

    QStringList summaries;
    QStringList rejected;
    QStringList notices;
    bool clean = true;
    bool unclassified = false;
    bool cancelled = false;
    for (const ImportReport &report : reports) {
        summaries << report.summary();
        rejected << report.rejectionMessages();
        notices << report.noticeMessages();
        clean = clean && report.clean();
        unclassified = unclassified || !report.unclassifiedTools.isEmpty();
        cancelled = cancelled || report.cancelled;
    }
    auto *box = new QMessageBox(clean ? QMessageBox::Information : QMessageBox::Warning, tr("Import"),
                                summaries.join(QStringLiteral("\n\n")), QMessageBox::Ok, &m_window);
    box->setObjectName(QStringLiteral("importResult"));
    box->setTextFormat(Qt::PlainText);
    QStringList informative;
    if (cancelled)
        informative << tr(
                "Cancelled: everything committed before the stop is kept. Import the file again to finish; "
                "nothing is stored twice.");
    if (!rejected.isEmpty())
        informative << tr("%1 rejected and skipped whole; the rest was imported.")
                               .arg(rejected.size() == 1
                                            ? tr("1 line or conversation was")
                                            : tr("%1 lines or conversations were").arg(rejected.size()));
    if (unclassified)
        informative << tr(
                "Some tools are unknown to the registry: classify them so their calls can be judged.");
    box->setInformativeText(informative.join(u' '));
    if (!rejected.isEmpty() || !notices.isEmpty()) {
        QStringList details = rejected;
        for (const QString &notice : std::as_const(notices))
            details << tr("notice: %1").arg(notice);
        box->setDetailedText(details.join(u'\n'));
    }
    if (unclassified) {
        QPushButton *classify = box->addButton(tr("Classify tools…"), QMessageBox::ActionRole);
        classify->setObjectName(QStringLiteral("classifyToolsButton"));
        connect(classify, &QPushButton::clicked, this, &TranscriptImportFlow::classifyTools,
                Qt::QueuedConnection);
    }
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    emit importFinished(reports);
}

ClassifyToolsDialog *TranscriptImportFlow::classifyTools()
{
    if (!m_readOnlyReason.isEmpty())
        return nullptr;
    if (const QString refused = m_limits.refusal(TeamRole::Admin, tr("classifying tools"));
        !refused.isEmpty()) {
        showError(refused);
        return nullptr;
    }
    if (m_import) {
        // The running import reads with the registry it started with, and holds the write lock.
        showError(tr("Classify tools once the import has finished."));
        return nullptr;
    }
    readAgainKnownTools();
    Expected<QList<UnclassifiedTool>> tools = m_store.unclassifiedTools();
    if (!tools) {
        showError(tools.message());
        return nullptr;
    }
    auto *dialog = new ClassifyToolsDialog(*tools, &m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ClassifyToolsDialog::classificationChosen, this, [this, dialog](const ToolSpec &spec) {
        const Expected<QString> applied = applyClassification(spec);
        if (applied) {
            showMessage(*applied, 15000);
            dialog->markClassified(spec.name, *applied);
        } else {
            showError(applied.message());
            dialog->showProblem(applied.message());
        }
    });
    dialog->open();
    return dialog;
}

void TranscriptImportFlow::readAgainKnownTools()
{
    // A confirmation cut short between saving the registry and reading the calls again (a console
    // killed), or a registry file edited by hand: until read, a retry keyed by the registry would
    // not meet the stored call keyed without it.
    if (!m_readOnlyReason.isEmpty() || !m_limits.refusal(TeamRole::Admin, tr("classifying tools")).isEmpty())
        return;
    const Expected<QStringList> done = reclassifyKnownTools(m_store, m_registries);
    if (!done) {
        showMessage(
                tr("Could not read again the calls of tools the registry now knows: %1").arg(done.message()));
        return;
    }
    if (done->isEmpty())
        return;
    emit storeChanged();
    showMessage(tr("Read again as the registry now says: %1.").arg(done->join(QStringLiteral(", "))), 15000);
}

Expected<QString> TranscriptImportFlow::applyClassification(const ToolSpec &spec)
{
    if (m_registrySource.userFile.isEmpty())
        return makeError(tr("No user registry file is set, so the classification cannot be kept."));
    if (Expected<void> saved = saveToolToUserRegistry(m_registrySource.userFile, spec); !saved)
        return saved.error();
    const Expected<RegistryChoice> choice = chooseRegistry(m_registrySource);
    if (!choice)
        return choice.error();
    if (!choice->warnings.isEmpty())
        return makeError(InputErrc::Invalid, choice->warnings.join(u' '));
    m_registries = choice->selection;
    emit registriesChanged(m_registries);
    Expected<Reclassification> done = reclassifyTool(m_store, m_registries, spec.name);
    if (!done)
        return done.error();
    emit storeChanged();
    return tr("%1 is now %2 (saved to %3): %4 read again in %5.")
            .arg(spec.name, toolClassLabel(spec.toolClass), m_registrySource.userFile,
                 done->calls == 1 ? tr("1 call") : tr("%1 calls").arg(done->calls),
                 done->tickets == 1 ? tr("1 ticket") : tr("%1 tickets").arg(done->tickets));
}

} // namespace verity
