#pragma once

#include "finance/reconciliation.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;

namespace verity {

// Which seller's rows a reconciliation shows, and what that seller's two balances differ by:
// Verity's (the latest a transcript stated), the provider's (when it was read), the rows of
// the period that make up the difference, and what they leave unexplained. With every seller
// shown, it says how many sellers' balances differ.
class SellerDifferenceBar : public QWidget
{
    Q_OBJECT

public:
    explicit SellerDifferenceBar(QWidget *parent = nullptr);

    // Lists the reconciliation's sellers, keeping the one chosen while it is still there.
    void setReconciliation(const std::optional<Reconciliation> &reconciliation);
    void chooseSeller(const QString &sellerId); // empty: every seller
    QString sellerId() const; // empty: every seller

    QComboBox *sellerBox() const { return m_seller; }
    QString differenceText() const;

signals:
    void sellerChosen(const QString &sellerId); // empty: every seller

private:
    void showDifference();

    QComboBox *m_seller;
    QLabel *m_difference;
    std::optional<Reconciliation> m_reconciliation;
};

} // namespace verity
