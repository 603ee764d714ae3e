from .pricing import apply_discount


class Cart:
    def __init__(self):
        self.lines = []
        self.discount = 0

    def add(self, price, qty=1):
        self.lines.append((price, qty))

    def subtotal(self):
        return sum(price * qty for price, qty in self.lines)

    def total(self):
        amount = apply_discount(self.subtotal(), self.discount)
        return apply_discount(amount, self.discount)
