#pragma once

#include "domain/expected.h"
#include "domain/providerstatement.h"
#include "duplicatepayoutspane.h"
#include "finance/payoutmonth.h"
#include "provider/providerclient.h"
#include "resolution/reconciliationsettlement.h"

#include <QPointer>
#include <QWidget>

#include <functional>

class QComboBox;
class QDateEdit;
class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace verity {

class DuplicatePayoutModel;
class ReconciliationModel;
class SellerDifferenceBar;
class StatementFetch;
struct ReconRow;
struct StatementAnswer;

// Asks for a file to read: an empty path when the person cancels.
using OpenFileChooser =
        std::function<QString(QWidget *parent, const QString &caption, const QString &filter)>;

// Verity's ledger against the provider for a period: fetched over the provider's API or read
// from its CSV export. A failed fetch says why and keeps the result already shown.
class ReconciliationPane : public QWidget
{
    Q_OBJECT

public:
    ReconciliationPane(ReconciliationModel &model, DuplicatePayoutModel &duplicates,
                       QWidget *parent = nullptr);
    ~ReconciliationPane() override;

    void setProviderSettings(std::function<ProviderSettings()> settings) { m_settings = std::move(settings); }
    void setAccounts(std::function<QStringList()> accounts) { m_accounts = std::move(accounts); }
    void setOpenFileChooser(OpenFileChooser chooser) { m_chooseOpen = std::move(chooser); }
    // The period the tab opens on, read each time it is shown until the person picks one or a
    // statement is read (latestReconciliationMonth); without it, the current calendar month.
    void setOpeningPeriod(std::function<Expected<OpeningPeriod>()> opening)
    {
        m_opening = std::move(opening);
    }
    // The data was read again (an import, a settlement): the opening period follows it.
    void readAgain();
    void setSaveFileChooser(SaveFileChooser chooser) { m_chooseSave = std::move(chooser); }
    // Not empty: this user may not settle from evidence; the button stays, greyed, saying why.
    void setSettleRefusal(const QString &reason);

    QDateEdit *fromEdit() const { return m_from; }
    // The period the two dates give, or why they give none.
    Expected<Period> chosenPeriod() const;
    QDateEdit *toEdit() const { return m_to; }
    QPushButton *fetchButton() const { return m_fetch; }
    QPushButton *readExportButton() const { return m_readExport; }
    QComboBox *categoryBox() const { return m_category; }
    SellerDifferenceBar *sellerBar() const { return m_sellerBar; }
    QTableView *table() const { return m_table; }
    QPushButton *exportCsvButton() const { return m_exportCsv; }
    QPushButton *exportPdfButton() const { return m_exportPdf; }
    QPushButton *settleButton() const { return m_settle; }
    // Evidence from a reconciliation settles the unknown refunds it proves (performed, verified
    // by reconciliation): `proven` says which calls the statement proves, `settle` settles the
    // ones the person was shown and says what it did, or why not. `confirm` asks the person
    // first, naming each call (Cancel the default).
    using ProvenCalls = std::function<Expected<QList<ProvenCall>>(const ProviderStatement &)>;
    using SettleProven =
            std::function<Expected<QString>(const ProviderStatement &, const QList<ProvenCall> &)>;
    void setSettlement(ProvenCalls proven, SettleProven settle);
    void setConfirm(std::function<bool(QWidget *, const QString &)> confirm)
    {
        m_confirm = std::move(confirm);
    }
    QString totalsText() const;
    QString statusText() const;
    QString detailsText() const;
    bool isFetching() const;

    void fetch(); // starts, or cancels the fetch that runs
    void readExport();
    // The row of the table (as sorted), in the model's terms.
    const ReconRow *rowAt(int tableRow) const;

signals:
    void callChosen(qint64 ticketId, const QString &callExtId);
    void settled(); // escalations were settled from the evidence: every view reads again

protected:
    void showEvent(QShowEvent *event) override;

private:
    // The pane's rows, top to bottom, in the order they are made.
    QHBoxLayout *buildSourceRow();
    QHBoxLayout *buildFilterRow();
    QSplitter *buildTableAndRecord();
    void connectControls();
    void showPeriod(const Period &period);
    void openOnLatestPeriod();
    std::optional<Period> period();
    void fetched(const StatementAnswer &answer);
    void showStatement(const ProviderStatement &statement, const QString &how);
    void exportCsv();
    void exportPdf();
    void showDetails();
    void updateTotals();
    void setBusy(bool busy);
    void setStatus(const QString &text, bool bad);
    QString suggestedName(const QString &suffix) const;
    void updateSettleButton();
    QString m_settleRefusal;
    void settle();

    ReconciliationModel &m_model;
    DuplicatePayoutModel &m_duplicates;
    QSortFilterProxyModel *m_proxy;
    QDateEdit *m_from;
    QDateEdit *m_to;
    QPushButton *m_fetch;
    QPushButton *m_readExport;
    QProgressBar *m_busy;
    QLabel *m_status;
    QComboBox *m_category;
    SellerDifferenceBar *m_sellerBar;
    QLabel *m_totals;
    QPushButton *m_exportCsv;
    QPushButton *m_exportPdf;
    QPushButton *m_settle;
    QTableView *m_table;
    QPlainTextEdit *m_details;
    QPointer<StatementFetch> m_running;
    std::function<ProviderSettings()> m_settings;
    std::function<QStringList()> m_accounts;
    OpenFileChooser m_chooseOpen;
    SaveFileChooser m_chooseSave;
    std::function<Expected<OpeningPeriod>()> m_opening;
    bool m_openingFailed = false; // its problem is what the status shows
    bool m_periodChosen = false; // by the person: the opening period no longer follows the data
    bool m_showingPeriod = false;
    std::optional<ProviderStatement> m_statement; // the one shown, the evidence a settlement rests on
    ProvenCalls m_provenCalls;
    SettleProven m_settleProven;
    std::function<bool(QWidget *, const QString &)> m_confirm;
};

} // namespace verity
