def response(hey_bob):
    pass
