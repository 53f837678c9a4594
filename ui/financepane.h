#pragma once

#include "duplicatepayoutspane.h"
#include "reconciliationpane.h"

#include <QWidget>

class QTabWidget;
class QSplitter;
class QTableView;
class QSortFilterProxyModel;

namespace verity {

class DuplicatePayoutModel;
class FinanceReviewStore;
class ReconciliationModel;
class SellerBalanceChart;
class SellerBalanceModel;

// Finance's view of the refunds: sellers and their balances over time, the duplicate
// payouts and their recovery, and the reconciliation against the provider. Read lazily: the
// store is only read while the pane is shown, and again on refresh().
class FinancePane : public QWidget
{
    Q_OBJECT

public:
    explicit FinancePane(FinanceReviewStore &store, QWidget *parent = nullptr);

    void setProviderSettings(std::function<ProviderSettings()> settings);
    void setOperatorName(std::function<QString()> name);
    void setNotePrompt(NotePrompt prompt);
    void setOpenFileChooser(OpenFileChooser chooser);
    void setSaveFileChooser(SaveFileChooser chooser);
    // Why this user may not settle from evidence, or mark payouts (empty: they may).
    void setRefusals(const QString &settle, const QString &mark);

    // Re-reads the store now when shown, else the next time it is shown.
    void refresh();
    void selectSeller(const QString &sellerId);

    QTabWidget *tabs() const { return m_tabs; }
    QTableView *sellerTable() const { return m_sellerTable; }
    SellerBalanceChart *chart() const { return m_chart; }
    DuplicatePayoutsPane *duplicatesPane() const { return m_duplicatesPane; }
    ReconciliationPane *reconciliationPane() const { return m_reconciliationPane; }
    SellerBalanceModel &sellers() const { return *m_sellers; }
    DuplicatePayoutModel &duplicates() const { return *m_duplicates; }
    ReconciliationModel &reconciliation() const { return *m_reconciliation; }

signals:
    void callChosen(qint64 ticketId, const QString &callExtId);
    void payoutMarked(); // the audit log has a new entry
    void escalationsSettled(); // a reconciliation settled unknown calls: every view reads again
    void errorOccurred(const QString &message);

protected:
    void showEvent(QShowEvent *event) override;

private:
    QSplitter *buildSellersTab();
    void fitSellerColumns();
    void reload();
    void showCurrentSeller();

    SellerBalanceModel *m_sellers;
    DuplicatePayoutModel *m_duplicates;
    ReconciliationModel *m_reconciliation;
    QSortFilterProxyModel *m_sellerProxy;
    QTabWidget *m_tabs;
    QTableView *m_sellerTable;
    QSplitter *m_sellersSplitter;
    int m_sellerTableNatural = 0; // every column at its natural width
    bool m_sellersSplit = false; // the first showing gave the table its width
    SellerBalanceChart *m_chart;
    DuplicatePayoutsPane *m_duplicatesPane;
    ReconciliationPane *m_reconciliationPane;
    bool m_stale = true;
    std::function<QString()> m_operatorName;
};

} // namespace verity
